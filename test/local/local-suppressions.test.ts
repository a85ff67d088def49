import { describe, expect, it } from 'vitest';
import type { LocalAws } from '../../local/aws/local-aws';
import { runLocal } from '../../local/local-runner';

const code = (i: number) =>
  JSON.stringify({
    eventId: `evt-local-resend-${i}`,
    occurredAt: new Date().toISOString(),
    type: 'LoginCodeRequested',
    templateId: 'login-code',
    messageClass: 'otp',
    data: { code: String(100_000 + i), expiresInMinutes: 10 },
    recipients: [{ recipientId: 'user-local-resend', phone: '+14155550142', channels: ['sms'] }],
  });

describe('npm start shows what the limits suppressed', () => {
  it('a user tapping "resend code" 6 times gets 5 codes; the 6th is SUPPRESSED, in the summary and on both local pages, without the number', async () => {
    let aws: LocalAws | undefined;
    const pages: string[] = [];
    const summary = await runLocal({
      lines: Array.from({ length: 6 }, (_, i) => code(i)),
      rate: 500,
      concurrency: 1,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started) => {
        aws = started;
      },
      beforeStop: async () => {
        for (const url of [aws!.sns.outboxUrl, aws!.ses.mailboxUrl]) pages.push(await (await fetch(url)).text());
      },
    });
    expect(summary).toMatchObject({ sent: 5, suppressed: { AddressLimit: 1 }, pending: 0 });
    expect(aws?.sns.accepted()).toHaveLength(5);
    for (const page of pages) {
      expect(page).toContain('Suppressed or held (1)');
      expect(page).toContain('<td>AddressLimit</td>');
      expect(page).toContain('<td>user-local-resend</td>');
    }
    // The SNS page lists the five codes sent (with their numbers, as SNS would); the board never adds one.
    expect(pages[1]).not.toContain('+14155550142');
  });
});
