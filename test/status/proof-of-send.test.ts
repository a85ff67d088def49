import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evidenceFromRow } from '../../functions/core/provider/delivery-evidence';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS } from '../support/sender-harness';
import { ControlledClock } from '../support/controlled-clock';
import { deadClaimRow, plansOf, ReclaimerHarness } from '../reclaimer/reclaimer-harness';
import { tempDir } from '../support/temp-dir';
import { eumEvent, sqsEvent } from './eum-fixtures';
import { RECIPIENT_EMAIL, RECIPIENT_PHONE, sesEvent, snsEvent } from './status-fixtures';
import { StatusHarness } from './status-harness';

const db = useTestLedger();

/**
 * The row of an otp message (which resends when it cannot tell) whose owner died mid-send under claim
 * `claimVersion`: attempt 1 alone, or attempt 2 after the reclaimer took attempt 1's dead claim over and its
 * own answer was lost too. Either may have reached the provider.
 */
async function deadAttempt(event: NotificationEvent, claimVersion: number, clock: ControlledClock): Promise<LedgerRow> {
  const [plan] = plansOf(event);
  const seeded = deadClaimRow(plan!, clock.now());
  const row: LedgerRow = { ...seeded, claimVersion, attempts: claimVersion };
  const result = await db.ledger.claim(row, clock.now());
  if (!result.claimed) throw new Error('seed row exists');
  return row;
}

const text = (eventId: string) => loginCodeEvent({ eventId, recipients: [{ recipientId: 'user-9', phone: RECIPIENT_PHONE, channels: ['sms'] }] });
const email = (eventId: string) => loginCodeEvent({ eventId, recipients: [{ recipientId: 'user-9', email: RECIPIENT_EMAIL, channels: ['email'] }] });

/** The reclaimer once the dead claim is stale: what it did, and what the row now says. */
async function reclaim(clock: ControlledClock, key: string) {
  clock.advance(CLAIM_TIMEOUT_MS + 1_000);
  const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile: join(tempDir('proof-of-send-'), 'outbox.jsonl'), withoutLookup: true });
  const summary = await reclaimer.run();
  return { summary, row: await db.ledger.get(key) };
}

describe('TEXT_BLOCKED is read as "that attempt was not sent" (defect: a block happens after the hand-off)', () => {
  it('after TEXT_SUCCESSFUL and then TEXT_BLOCKED, the reclaimer settles the text on evidence and sends nothing again', async () => {
    const clock = new ControlledClock();
    const row = await deadAttempt(text('evt-proof-blocked'), 1, clock);
    const at = clock.now();
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(sqsEvent(eumEvent('TEXT_SUCCESSFUL', { key: row.key, claimVersion: 1, at: at + 1_000 })));
    await status.invoke(sqsEvent(eumEvent('TEXT_BLOCKED', { key: row.key, claimVersion: 1, at: at + 2_000 })));

    const { summary, row: after } = await reclaim(clock, row.key);
    expect(summary).toMatchObject({ found: 1, sent: 1, resent: 0 });
    expect(after).toMatchObject({ state: 'SENT', deliveryStatus: 'TEXT_BLOCKED' });
  });

  it('TEXT_BLOCKED alone proves the carrier had the text', () => {
    expect(evidenceFromRow({ deliveryStatus: 'TEXT_BLOCKED', deliveryStatusClaimVersion: 2, claimVersion: 2, lastRelease: 'ambiguous' })).toBe('sent');
  });
});

describe("a later attempt's refusal overwrites an earlier attempt's proof of delivery (defect: one status per row, the later event wins)", () => {
  it.each([
    { order: 'the refusal first, the proof late (an older event time)', refusalFirst: true },
    { order: 'the proof first, the refusal later', refusalFirst: false },
  ])('End User Messaging: TEXT_DELIVERED of attempt 1 and TEXT_TTL_EXPIRED of attempt 2 ($order): no third text', async ({ refusalFirst }) => {
    const clock = new ControlledClock();
    const row = await deadAttempt(text(`evt-proof-eum-${refusalFirst}`), 2, clock);
    const at = clock.now();
    const delivered = eumEvent('TEXT_DELIVERED', { key: row.key, claimVersion: 1, messageId: 'eum-attempt-1', at: at + 1_000 });
    const expired = eumEvent('TEXT_TTL_EXPIRED', { key: row.key, claimVersion: 2, messageId: 'eum-attempt-2', at: at + 5_000 });
    const status = new StatusHarness(db.ledger, clock);
    for (const event of refusalFirst ? [expired, delivered] : [delivered, expired]) await status.invoke(sqsEvent(event));

    expect(evidenceFromRow((await db.ledger.get(row.key))!)).toBe('sent');
    const { summary, row: after } = await reclaim(clock, row.key);
    expect(summary).toMatchObject({ found: 1, sent: 1, resent: 0 });
    // Settled with the id of the text that went out, never the refused one's.
    expect(after).toMatchObject({ state: 'SENT', providerMessageId: 'eum-attempt-1' });
  });

  it.each([true, false])('SES: Delivery of attempt 1 and Reject of attempt 2 (refusal first: %s): no third e-mail', async (refusalFirst) => {
    const clock = new ControlledClock();
    const row = await deadAttempt(email(`evt-proof-ses-${refusalFirst}`), 2, clock);
    const mailAt = (ms: number) => new Date(clock.now() + ms).toISOString();
    const delivered = sesEvent('Delivery', { key: row.key, claimVersion: 1, mailAt: mailAt(1_000) });
    const rejected = sesEvent('Reject', { key: row.key, claimVersion: 2, mailAt: mailAt(5_000) });
    const status = new StatusHarness(db.ledger, clock);
    for (const event of refusalFirst ? [rejected, delivered] : [delivered, rejected]) await status.invoke(snsEvent(event));

    expect(evidenceFromRow((await db.ledger.get(row.key))!)).toBe('sent');
    const { summary } = await reclaim(clock, row.key);
    expect(summary).toMatchObject({ found: 1, sent: 1, resent: 0 });
  });

  it("a refusal of the row's own latest attempt still proves it unsent when no attempt was ever proven sent", async () => {
    const clock = new ControlledClock();
    const row = await deadAttempt(text('evt-proof-refusal-alone'), 2, clock);
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(sqsEvent(eumEvent('TEXT_QUEUED', { key: row.key, claimVersion: 2, at: clock.now() + 1_000 })));
    await status.invoke(sqsEvent(eumEvent('TEXT_TTL_EXPIRED', { key: row.key, claimVersion: 2, at: clock.now() + 9_000 })));
    expect(evidenceFromRow((await db.ledger.get(row.key))!)).toBe('not-sent');
  });
});
