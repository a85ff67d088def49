import type { ConsentReason } from '../policy/consent';
import type { DeliveryEvidence } from '../policy/message-class';
import type { ProviderRequest, SendRequest } from '../templates/rendered-message';

/**
 * Why a provider certainly did not send:
 * - `throttled`: over the account's sending rate; back off.
 * - `quota-exhausted`: the daily sending quota is spent; pause until it refills.
 * - `configuration`: the account or its setup refuses every send until an operator acts.
 * - `unavailable`: the provider could not be reached (connection refused, connect timeout).
 * - `unrecognised`: a refusal the provider does not document for this call.
 */
export type TransientCause = 'throttled' | 'quota-exhausted' | 'configuration' | 'unavailable' | 'unrecognised';

/**
 * The four things a provider call can have done:
 * - `sent`: accepted; the provider's message id is stored.
 * - `permanent`: rejected and will be rejected again (bad address, rejected content): FAILED; or, when
 *   `consent` names why, because the recipient withdrew consent (an opted-out number): SUPPRESSED with that
 *   reason, recorded so the next bulk message to the address is never handed to a provider.
 * - `transient`: certainly not sent (throttled, connection refused): retry later, same key.
 * - `ambiguous`: the request may have been acted on (timeout, 5xx, reset): handled per message class.
 */
export type DeliveryOutcome =
  | { readonly kind: 'sent'; readonly providerMessageId: string }
  | {
      readonly kind: 'permanent';
      readonly reason: string;
      /**
       * Set when the provider refused because the recipient withdrew consent: `OptedOut` (a number that
       * replied STOP: SNS, End User Messaging), `Unsubscribed` (an e-mail contact). @default none: FAILED
       */
      readonly consent?: ConsentReason;
    }
  | { readonly kind: 'transient'; readonly cause: TransientCause; readonly reason: string }
  | {
      readonly kind: 'ambiguous';
      readonly reason: string;
      /**
       * Set when no answer came back from the provider (no HTTP response): the kind of failure, the error's code
       * or name (`ECONNRESET`, `AbortError`). The same kind on consecutive attempts of one key, with nothing to
       * show the request ever reached the provider, is a loop that ends (see ambiguity-loop.ts).
       * @default none: the provider answered (a 5xx, a 200 without a message id)
       */
      readonly unanswered?: string;
    };

/** A channel's provider. Implementations never throw: every failure becomes an outcome. */
export interface DeliveryProvider {
  /** One call, no SDK retries, aborted when `signal` fires. */
  send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome>;
  /**
   * Evidence whether a message with this key reached the provider, where the provider can tell.
   * @default 'none' for providers that cannot be asked (SES v2, SNS).
   */
  lookup?(key: string): Promise<DeliveryEvidence>;
  /**
   * Whether the provider's delivery events carry our key and claim version (End User Messaging SMS's
   * `Context`), so evidence of an unknown outcome may still arrive: `resend` and `give-up` classes wait
   * their `evidenceWindowSeconds` for it. @default false (SNS SMS logs carry no key)
   */
  readonly keyedEvidence?: boolean;
  /**
   * Whether the provider drops a text it could not hand off within a time to live (End User Messaging's
   * `TimeToLive`): its texts then get their class's `smsTimeToLiveSeconds` counted from the event, and a text
   * whose time ran out is not sent (message-lifetime.ts). @default false (SNS keeps no time to live for a text)
   */
  readonly timeToLive?: boolean;
  /**
   * Whether the provider holds `address` as opted out of this account's messages, where it can be asked cheaply
   * (SNS `CheckIfPhoneNumberIsOptedOut`): asked before a bulk message the stack has no opt-out on record for,
   * so a number that replied STOP is not sent a text the provider would not deliver. May throw; the caller
   * then sends (the provider still refuses an opted-out number). @default none: not asked
   */
  optedOut?(address: string, signal: AbortSignal): Promise<boolean>;
}

export type DeliveryProviders = Readonly<Record<SendRequest['message']['channel'], DeliveryProvider>>;
