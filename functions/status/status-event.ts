import type { ConsentReason } from '../core/policy/consent';
import type { Channel } from '../core/event/idempotency-key';
import type { DeliveryStatusUpdate } from '../core/provider/delivery-status';

/** How a delivery-status event names its message. */
export type MessageRef =
  | { readonly kind: 'key'; readonly key: string }
  /** SNS SMS delivery logs carry no message attributes: only the id SNS returned to the sender. */
  | { readonly kind: 'sms-message-id'; readonly providerMessageId: string }
  /**
   * An SES mail or End User Messaging text without our key (tag, `Context`): another application's message on
   * the same configuration set. This sender puts its key on every one, so no ledger row is looked up.
   */
  | { readonly kind: 'untagged'; readonly providerMessageId: string };

/**
 * What an event says about the recipient's consent, beside the delivery status:
 * - `preferences`: SES's `Subscription` event, the contact's whole new state in the contact list (unsubscribed
 *   from all, and the topics opted out of; a re-subscribe included);
 * - `refused`: the provider accepted the message and then did not deliver it because the recipient withdrew
 *   consent (SES's bounce to an unsubscribed contact: `Unsubscribed` for its topic; an SMS log line saying the
 *   number is opted out: `OptedOut`).
 */
export type ConsentSignal =
  | { readonly kind: 'preferences'; readonly all: boolean; readonly topicsOut: readonly string[] }
  | { readonly kind: 'refused'; readonly reason: ConsentReason; readonly topic?: string };

/** One delivery-status event, decoded and reduced to what the ledger records. */
export interface StatusEvent {
  readonly channel: Channel;
  readonly ref: MessageRef;
  readonly update: DeliveryStatusUpdate;
  /** @default none: the event says nothing about consent */
  readonly consent?: ConsentSignal;
  /**
   * An End User Messaging event whose `isFinal` is missing or not a boolean: read as intermediate (never final),
   * and counted, so a changed format cannot leave texts waiting unseen.
   * @default false
   */
  readonly finalityUnstated?: boolean;
}
