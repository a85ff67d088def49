import * as v from 'valibot';
import { jsonObject } from '../core/json-objects';
import { describeProblems, validate } from '../core/schema';
import type { StatusEvent } from './status-event';

/**
 * One SNS SMS delivery-status log line (CloudWatch Logs group `sns/<region>/<account>/DirectPublishToPhoneNumber`
 * and its `/Failure` sibling). Only the message id, the status and, of a failure, whether the provider's
 * response says the number opted out are read: the line also holds the destination phone number, which is
 * never read, stored or logged (the response may repeat it, so it is only tested, never kept).
 */
export const SmsDeliveryLogSchema = jsonObject({
  notification: jsonObject({ messageId: v.pipe(v.string(), v.minLength(1)) }),
  status: v.picklist(['SUCCESS', 'FAILURE']),
  delivery: v.optional(jsonObject({ providerResponse: v.optional(v.string()) })),
});

/**
 * SNS's delivery-failure reason for a number that replied STOP: "Phone number is opted out" (SNS developer
 * guide, SMS delivery failure reasons); logs have also been seen to say "<number> is opted out".
 */
const OPTED_OUT_RESPONSE = /\bis opted out\b/i;

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
  const { status, delivery } = parsed.output;
  const optedOut = status === 'FAILURE' && OPTED_OUT_RESPONSE.test(delivery?.providerResponse ?? '');
  return {
    channel: 'sms',
    ref: { kind: 'sms-message-id', providerMessageId: parsed.output.notification.messageId },
    update: { status, at: loggedAt, source: 'sns-sms', ...(optedOut ? { detail: 'OptedOut' } : {}) },
    ...(optedOut ? { consent: { kind: 'refused', reason: 'OptedOut' } as const } : {}),
  };
}
