import * as z from '../core/schema';
import type { StatusEvent } from './status-event';

/**
 * One SNS SMS delivery-status log line (CloudWatch Logs group `sns/<region>/<account>/DirectPublishToPhoneNumber`
 * and its `/Failure` sibling). Only the message id and the status are read: the line also holds the
 * destination phone number, which is never read, stored or logged.
 */
export const SmsDeliveryLogSchema = z.object({
  notification: z.object({ messageId: z.string().check(z.minLength(1)) }),
  status: z.enum(['SUCCESS', 'FAILURE']),
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
  const parsed = SmsDeliveryLogSchema.safeParse(json);
  if (!parsed.success) {
    return { invalid: `not an SNS SMS delivery log: ${parsed.error.issues[0]?.path.join('.') || 'root'} ${parsed.error.issues[0]?.message}` };
  }
  return {
    channel: 'sms',
    ref: { kind: 'sms-message-id', providerMessageId: parsed.data.notification.messageId },
    update: { status: parsed.data.status, at: loggedAt, source: 'sns-sms' },
  };
}
