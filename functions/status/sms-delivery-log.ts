import * as v from 'valibot';
import { jsonObject } from '../core/json-objects';
import { describeProblems, validate } from '../core/schema';
import type { StatusEvent } from './status-event';

/**
 * One SNS SMS delivery-status log line (CloudWatch Logs group `sns/<region>/<account>/DirectPublishToPhoneNumber`
 * and its `/Failure` sibling). Only the message id and the status are read: the line also holds the
 * destination phone number, which is never read, stored or logged.
 */
export const SmsDeliveryLogSchema = jsonObject({
  notification: jsonObject({ messageId: v.pipe(v.string(), v.minLength(1)) }),
  status: v.picklist(['SUCCESS', 'FAILURE']),
});

/**
 * A decoded log event as an SMS status, found by SNS's message id (stored as the row's
 * `providerMessageId` and, indexed, `smsMessageId` when the send completed).
 *
 * @param loggedAt the log event's timestamp (epoch ms): when SNS recorded the final status.
 */
export function statusFromSmsDeliveryLog(message: string, loggedAt: number): StatusEvent | { readonly invalid: string } {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { invalid: 'SMS delivery log line is not JSON' };
  }
  const parsed = validate(SmsDeliveryLogSchema, json);
  if (!parsed.success) return { invalid: `not an SNS SMS delivery log: ${describeProblems(parsed.problems, 1)}` };
  return {
    channel: 'sms',
    ref: { kind: 'sms-message-id', providerMessageId: parsed.output.notification.messageId },
    update: { status: parsed.output.status, at: loggedAt, source: 'sns-sms' },
  };
}
