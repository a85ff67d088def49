import { idempotencyKey, type Channel } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import type { WireRig } from './wire-harness';

/** The metrics of an unknown outcome and what follows one: none may move for a message that certainly was not sent. */
export const AMBIGUITY_METRICS = [METRIC.AmbiguousOutcome, METRIC.ResentAfterAmbiguity, METRIC.GaveUpAfterAmbiguity, METRIC.AmbiguityLoopStopped] as const;

const isSend = (r: { operation: string }) => r.operation === 'Publish' || r.operation === 'SendEmail';

/** The SendEmail and Publish requests the rig's providers have received so far. */
export function sendRequests(rig: WireRig): number {
  return rig.sesProxy.requests.filter(isSend).length + rig.snsProxy.requests.filter(isSend).length;
}

/**
 * One message on `channel`, the data field it shows set to `value`: an e-mail to the seller (order-shipped's
 * `orderId`), an SMS login code (`code`), a push to the buyer (`orderId`).
 */
export function oneMessage(channel: Channel, eventId: string, value: string): { event: NotificationEvent; key: string; field: string } {
  if (channel === 'sms') {
    return {
      event: loginCodeEvent({ eventId, data: { code: value, expiresInMinutes: 10 } }),
      key: idempotencyKey({ eventId, recipientId: 'user-9', channel, templateId: 'login-code' }),
      field: 'code',
    };
  }
  const base = orderShippedEvent();
  const recipient = channel === 'email' ? base.recipients[1]! : { ...base.recipients[0]!, channels: ['push' as const] };
  return {
    event: orderShippedEvent({ eventId, data: { ...base.data, orderId: value }, recipients: [recipient] }),
    key: idempotencyKey({ eventId, recipientId: recipient.recipientId, channel, templateId: 'order-shipped' }),
    field: 'orderId',
  };
}
