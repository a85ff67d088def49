import type { Channel } from '../event/idempotency-key';
import type { PushPolicy } from './push-policy';

/**
 * A message ready for a provider: the address and the rendered content, nothing else but the recipient's
 * own time zone when the event gave one (quiet hours are in the recipient's time on every channel a class
 * holds, and the reclaimer has only this stored message to go by). Providers never send it.
 */
export type RenderedMessage =
  | { readonly channel: 'email'; readonly to: string; readonly subject: string; readonly text: string; readonly html?: string; readonly timeZone?: string }
  | { readonly channel: 'sms'; readonly to: string; readonly text: string; readonly timeZone?: string }
  | {
      readonly channel: 'push';
      readonly to: string;
      readonly title: string;
      readonly text: string;
      /**
       * How long the content stays true, from the event's data (a sign-in code's validity; see
       * push-policy.ts). Kept in the ledger row with the rest, so a resend from the ledger keeps it.
       * @default unknown: the class's push lifetime applies
       */
      readonly validForSeconds?: number;
      readonly timeZone?: string;
    };

/** Everything a provider needs for one call. */
export interface SendRequest {
  /** The idempotency key, passed on as tag / message attribute / idempotency token. */
  readonly key: string;
  readonly message: RenderedMessage;
  readonly messageClass: string;
  readonly smsType: 'Transactional' | 'Promotional';
  /** The class's push lifetime and priority. */
  readonly push: PushPolicy;
  readonly templateId: string;
  /**
   * Whether the class is bulk (consent.ts): an e-mail then goes out with SES's unsubscribe mechanism.
   * @default false
   */
  readonly bulk?: boolean;
  /**
   * Seconds the message is still worth delivering, counted from the event's occurredAt when the send gate let it
   * through (message-lifetime.ts): the push TTL, End User Messaging's `TimeToLive`.
   * @default none: the class's own lifetime, counted from the send
   */
  readonly lifetimeLeftSeconds?: number;
}

/**
 * One attempt's provider call: the request and the claim version (fencing token) of the attempt
 * making it. SES tags the e-mail with it, so a delivery event can be tied to the attempt it is about.
 */
export interface ProviderRequest extends SendRequest {
  readonly claimVersion: number;
}

export type { Channel };
