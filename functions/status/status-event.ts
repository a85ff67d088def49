import type { Channel } from '../core/idempotency-key';
import type { DeliveryStatusUpdate } from '../core/delivery-status';

/** How a delivery-status event names its message. */
export type MessageRef =
  | { readonly kind: 'key'; readonly key: string }
  /** SNS SMS delivery logs carry no message attributes: only the id SNS returned to the sender. */
  | { readonly kind: 'sms-message-id'; readonly providerMessageId: string }
  /**
   * SES mail without our `idempotency-key` tag: another application's mail on the same
   * configuration set. This sender tags every e-mail, so no ledger row is looked up.
   */
  | { readonly kind: 'untagged-email'; readonly providerMessageId: string }
  /** An End User Messaging event without our key in its `Context`: another sender's on the same configuration set. */
  | { readonly kind: 'untagged'; readonly providerMessageId: string };

/** One delivery-status event, decoded and reduced to what the ledger records. */
export interface StatusEvent {
  readonly channel: Channel;
  readonly ref: MessageRef;
  readonly update: DeliveryStatusUpdate;
}
