import { describe, expect, it } from 'vitest';
import { statusFromSmsDeliveryLog } from '../../functions/status/sms-delivery-log';
import { LocalSmsOptOuts } from '../../local/aws/local-sms-opt-outs';
import { RECIPIENT_PHONE, smsDeliveryLogLine } from './status-fixtures';

// Issue 53 asked what SNS's delivery-status log says for a number that opted out. The decoder reads a FAILURE whose
// providerResponse says "... is opted out" (SNS's failure reason "Phone number is opted out", and the
// "<number> is opted out" form logs have shown) as the number's withdrawn consent, and nothing else as one; the
// local SNS writes the first form, so a local run and the decoder agree.
const line = (status: 'SUCCESS' | 'FAILURE', providerResponse: string) => {
  const parsed = JSON.parse(smsDeliveryLogLine('sns-1', status)) as { delivery: Record<string, unknown> };
  return JSON.stringify({ ...parsed, delivery: { ...parsed.delivery, providerResponse } });
};

describe("an SNS SMS delivery-status log line's opt-out", () => {
  it.each(['Phone number is opted out', `${RECIPIENT_PHONE} is opted out`])('a FAILURE saying "%s" withdraws the number\'s consent', (response) => {
    expect(statusFromSmsDeliveryLog(line('FAILURE', response), 1)).toMatchObject({
      update: { status: 'FAILURE', detail: 'OptedOut' },
      consent: { kind: 'refused', reason: 'OptedOut' },
    });
  });

  it.each([
    ['FAILURE', 'Unknown error attempting to reach phone'],
    ['FAILURE', 'Phone has blocked SMS'],
    ['SUCCESS', 'Message has been accepted by phone carrier'],
  ] as const)('a %s saying "%s" is no opt-out', (status, response) => {
    const read = statusFromSmsDeliveryLog(line(status, response), 1);
    expect(read).not.toHaveProperty('consent');
    expect(read).toMatchObject({ update: { status } });
  });

  it("reads the local SNS's line for a text to an opted-out number as that number's opt-out", () => {
    const lines: string[] = [];
    const optOuts = new LocalSmsOptOuts((logged) => lines.push(logged));
    optOuts.reply(RECIPIENT_PHONE, 'STOP');
    optOuts.logDelivery('sns-2', RECIPIENT_PHONE, 'Transactional');
    expect(statusFromSmsDeliveryLog(lines[0] ?? '', 1)).toMatchObject({ consent: { kind: 'refused', reason: 'OptedOut' } });
  });
});
