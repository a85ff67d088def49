import { STATUS_MEANINGS } from './delivery-status-meaning';
import type { Suppression } from '../policy/suppression';

/** Where a delivery-status event came from. */
export type DeliveryStatusSource = 'ses' | 'sns-sms' | 'eum-sms';

/** One delivery-status event, reduced to what the ledger records. Never holds an address. */
export interface DeliveryStatusUpdate {
  /** SES event type (`Send`, `Delivery`, `Bounce`, ...), SNS SMS status (`SUCCESS`, `FAILURE`) or End User Messaging event type (`TEXT_DELIVERED`, ...). */
  readonly status: string;
  /** When the provider says it happened, epoch ms: orders events that arrive out of order. */
  readonly at: number;
  readonly source: DeliveryStatusSource;
  /** Short, address-free detail such as `Permanent/General` for a bounce. @default none */
  readonly detail?: string;
  /**
   * The provider's id of the message, from the event. Written only to a row that has none yet
   * (a PENDING row whose send was ambiguous), and never from a refusal (its message was not sent),
   * so evidence-settled rows carry the id of a message that went out.
   * @default none
   */
  readonly providerMessageId?: string;
  /**
   * The claim version of the attempt that sent the e-mail the event is about (its `claim-version` tag).
   * @default none (untagged mail, SMS delivery logs)
   */
  readonly claimVersion?: number;
  /**
   * The provider says more is to come: an End User Messaging SMS event whose `isFinal` is not `true` ("There are
   * intermediate message statuses", the final one up to 72 hours later). What it proves is weighed by
   * `eventProof` (delivery-status-meaning.ts): an intermediate word never makes a message unsent or certainly undelivered.
   * @default false: the provider's final word on the message (every SES event and SNS delivery log is one)
   */
  readonly intermediate?: boolean;
}

/** Statuses the ledger records (STATUS_MEANINGS); anything else is ignored and counted. */
export function isKnownDeliveryStatus(status: string): boolean {
  return Object.hasOwn(STATUS_MEANINGS, status);
}

/** Tie-break rank of a status (higher wins at equal event time: the later stage of a message's life); 0 for unknown statuses. */
export function deliveryStatusRank(status: string): number {
  return isKnownDeliveryStatus(status) ? STATUS_MEANINGS[status]!.rank : 0;
}

/**
 * What recording one event did:
 * - `recorded`: the row now carries this status, or, for an older event proving a send or a delivery, its proof
 *   (`sendProvenBy`, `deliveryProvenBy`);
 * - `superseded`: the row already holds this event or a later one (a duplicate or out-of-order event);
 * - `no-row`: no ledger row has this key (another sender's mail, or a row past retention).
 */
export type RecordStatusResult = 'recorded' | 'superseded' | 'no-row';

/** The ledger as the status Lambda sees it. */
export interface DeliveryStatusStore {
  /**
   * Writes the status only if the row exists and holds no later event (by event time, then
   * rank). A status proving a send (`sent` in STATUS_MEANINGS) also sets the row's `sendProvenBy` if no
   * proof is there yet, and a final status proving a delivery (`delivered` in its `fallback` column:
   * eventProvesDelivery) its `deliveryProvenBy`, whatever the order: later events, of any attempt, replace the
   * status but never a proof. Never touches `state`, the claim or the TTL.
   */
  recordDeliveryStatus(key: string, update: DeliveryStatusUpdate, nowMs: number): Promise<RecordStatusResult>;
  /** The key of the SMS row SNS gave this message id when it was sent, if any (eventually consistent). */
  keyForSmsMessageId(smsMessageId: string): Promise<string | undefined>;
  /** The consent key of a bulk class's row (see consent.ts); undefined for no row or a row of another class. */
  consentKeyOfRow(key: string): Promise<string | undefined>;
  /**
   * A bulk row the provider accepted and then refused to deliver for consent (SES's bounce to an unsubscribed
   * contact, an SMS logged as opted out): SENT becomes SUPPRESSED with the reason, only from SENT and only on a
   * bulk row, so a repeat is a no-op (`false`). Touches neither the claim nor the TTL.
   */
  suppressAfterAcceptance(key: string, suppression: Suppression, nowMs: number): Promise<boolean>;
}
