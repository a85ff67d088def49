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
   * (a PENDING row whose send was ambiguous), so evidence-settled rows carry the real id.
   * @default none
   */
  readonly providerMessageId?: string;
  /**
   * The claim version of the attempt that sent the e-mail the event is about (its `claim-version` tag).
   * @default none (untagged mail, SMS delivery logs)
   */
  readonly claimVersion?: number;
}

/**
 * Precedence of statuses that carry the same event time (SES stamps `Send`, `Reject` and
 * `RenderingFailure` with the mail's own timestamp): the later stage of a message's life wins.
 */
const RANK: Readonly<Record<string, number>> = {
  Send: 1,
  DeliveryDelay: 2,
  Delivery: 3,
  SUCCESS: 3,
  Bounce: 4,
  Reject: 4,
  RenderingFailure: 4,
  FAILURE: 4,
  Complaint: 5,
  Subscription: 5,
  Open: 6,
  Click: 7,
  // End User Messaging SMS event types (its "Event types for SMS" page): AWS queues, hands off, then the carrier answers.
  TEXT_QUEUED: 1,
  TEXT_PENDING: 2,
  TEXT_SUCCESSFUL: 3,
  TEXT_DELIVERED: 3,
  TEXT_INVALID: 4,
  TEXT_INVALID_MESSAGE: 4,
  TEXT_BLOCKED: 4,
  TEXT_PROTECT_BLOCKED: 4,
  TEXT_TTL_EXPIRED: 4,
  TEXT_UNREACHABLE: 4,
  TEXT_CARRIER_UNREACHABLE: 4,
  TEXT_CARRIER_BLOCKED: 4,
  TEXT_SPAM: 4,
  TEXT_UNKNOWN: 4,
};

/** Statuses the ledger records; anything else is ignored and counted. */
export function isKnownDeliveryStatus(status: string): boolean {
  return Object.hasOwn(RANK, status);
}

/** Tie-break rank of a status (higher wins at equal event time); 0 for unknown statuses. */
export function deliveryStatusRank(status: string): number {
  return RANK[status] ?? 0;
}

/**
 * What recording one event did:
 * - `recorded`: the row now carries this status;
 * - `superseded`: the row already holds this event or a later one (a duplicate or out-of-order event);
 * - `no-row`: no ledger row has this key (another sender's mail, or a row past retention).
 */
export type RecordStatusResult = 'recorded' | 'superseded' | 'no-row';

/** The ledger as the status Lambda sees it. */
export interface DeliveryStatusStore {
  /**
   * Writes the status only if the row exists and holds no later event (by event time, then
   * rank). Never touches `state`, the claim or the TTL.
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
