import { describe, expect, it } from 'vitest';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import type { LocalAws } from '../../local/aws/local-aws';
import { EXAMPLE_SEEDS, runLocal } from '../../local/local-runner';

describe('npm start shows consent at work, one of each, on the real sender and status function', () => {
  it('member-3 (unsubscribed on SES) is SUPPRESSED Unsubscribed, member-4 (replied STOP) SUPPRESSED OptedOut; both on the pages; an unsubscribe link of the mailbox page works', async () => {
    let aws: LocalAws | undefined;
    const pages: string[] = [];
    let unsubscribeAnswer = 0;
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    const summary = await runLocal({
      lines,
      rate: 200,
      concurrency: 2,
      ...EXAMPLE_SEEDS,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started) => {
        aws = started;
      },
      beforeStop: async () => {
        const mailbox = await (await fetch(aws!.ses.mailboxUrl)).text();
        pages.push(mailbox, await (await fetch(aws!.sns.outboxUrl)).text());
        // member-1's weekly offers carry a working link: open it and unsubscribe, as member-1 would.
        const link = new RegExp(`member1@example\\.com</td><td>marketing</td><td><a href="([^"]+)">`).exec(mailbox)?.[1];
        unsubscribeAnswer = (await fetch(link!, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status;
      },
    });
    expect(summary.suppressed).toMatchObject({ Unsubscribed: 1, OptedOut: 1 });
    expect(summary.pending).toBe(0);
    // SES took member-3's e-mail and bounced it (as it documents for an unsubscribed contact); SNS got no text for member-4.
    expect(aws!.ses.accepted().filter((e) => e.to.includes('member3@example.com'))).toHaveLength(1);
    expect(aws!.sns.accepted().filter((p) => p.target === '+14155550199')).toHaveLength(0);
    for (const page of pages) {
      expect(page).toContain('<td>OptedOut</td>');
      expect(page).toContain('<td>Unsubscribed (the provider took it, did not deliver it)</td>');
    }
    expect(pages[0]).toContain('Contact list notifier: unsubscribe links');
    expect(unsubscribeAnswer).toBe(200);
    expect(aws!.ses.contactList.isUnsubscribed('member1@example.com', 'marketing')).toBe(true);
  });
});
