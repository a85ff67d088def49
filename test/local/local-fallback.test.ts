import { describe, expect, it } from 'vitest';
import { idempotencyKey, keyPrefix } from '../../functions/core/event/idempotency-key';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { LocalAws } from '../../local/aws/local-aws';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import { runLocal } from '../../local/local-runner';
import { LOCAL_TABLE_NAME } from '../../local/local-table';
import type { RunOutcomeFeed } from '../../local/run-outcome-feed';
import { scanLedger } from '../../local/senders/this-sender';
import { EXAMPLE_RUN } from '../support/example-run';

const keyOf = (channel: 'push' | 'email' | 'sms', recipientId = 'buyer-60') => idempotencyKey({ eventId: 'ord-1008-shipped', recipientId, channel, templateId: 'order-shipped' });

describe('npm start\'s channel fallback (the real trigger on the run\'s stream, the lanes\' real queues)', () => {
  it('buyer-60\'s push endpoint is disabled: the push FAILED, the e-mail sent once in its place, on the mailbox, the ledger page and the outcome feed; buyer-61\'s e-mail was delivered: no text', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    let aws: LocalAws | undefined;
    let feed: RunOutcomeFeed | undefined;
    let ledgerUrl = '';
    let rows: LedgerRow[] = [];
    const pages: Record<'mailbox' | 'ledger' | 'feed', string> = { mailbox: '', ledger: '', feed: '' };
    await runLocal({
      lines,
      ...EXAMPLE_RUN,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started, _lanes, ledgerPage, outcomeFeed) => {
        aws = started;
        feed = outcomeFeed;
        ledgerUrl = ledgerPage.url;
      },
      beforeStop: async () => {
        rows = [...(await scanLedger({ adminClient: aws!.dynamo.client() }, LOCAL_TABLE_NAME)).values()];
        // The mailbox page's own data (the page lists what its store holds).
        pages.mailbox = await (await fetch(`${aws!.ses.mailboxUrl}store`)).text();
        pages.ledger = await (await fetch(ledgerUrl)).text();
        pages.feed = await (await fetch(`${feed!.page.url}?eventId=ord-1008-shipped`)).text();
      },
    });

    const push = rows.find((row) => row.key === keyOf('push'));
    const email = rows.find((row) => row.key === keyOf('email'));
    expect(push).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^EndpointDisabled/) });
    expect(email).toMatchObject({ state: 'SENT', replaces: keyOf('push') });
    // Counted by the providers: the push never accepted, the e-mail accepted once (however often the stream was read).
    expect(aws!.sns.acceptedPerKey().get(keyOf('push'))).toBeUndefined();
    expect(aws!.ses.acceptedPerKey().get(keyOf('email'))).toBe(1);
    expect(aws!.ses.accepted().filter((e) => e.to.includes('buyer60@example.com'))).toHaveLength(1);

    expect(pages.mailbox).toContain('Your order 1008 has shipped');
    expect(pages.mailbox).toContain('buyer60@example.com');
    expect(pages.ledger).toContain(`<td>email (fallback, replaces ${keyPrefix(keyOf('push'))}`);
    expect(pages.ledger).toContain(`replaces             ${keyOf('push')}`);
    const feedDetails = feed!.feed.events().map((e) => e.detail).filter((d) => d.eventId === 'ord-1008-shipped' && d.recipientId === 'buyer-60');
    expect(feedDetails.filter((d) => d.channel === 'push').map((d) => d.state)).toEqual(['FAILED']);
    expect(feedDetails.filter((d) => d.channel === 'email' && d.state === 'SENT').map((d) => d.replaces)).toEqual([keyOf('push')]);
    expect(pages.feed).toContain('email (fallback, replaces');

    // buyer-61 names e-mail, then a text: SES's Delivery came, so the text never goes (no row, nothing accepted).
    expect(rows.find((row) => row.key === keyOf('email', 'buyer-61'))).toMatchObject({ state: 'SENT', deliveryStatus: 'Delivery', fallbackKey: keyOf('sms', 'buyer-61') });
    expect(rows.find((row) => row.key === keyOf('sms', 'buyer-61'))).toBeUndefined();
    expect(aws!.sns.acceptedPerKey().get(keyOf('sms', 'buyer-61'))).toBeUndefined();
  }, 120_000);
});
