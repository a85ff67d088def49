import type { AmbiguityStreak } from './ambiguity-loop';
import type { Channel } from '../event/idempotency-key';
import type { StoredRequest } from './stored-request';

import type { SuppressionReason } from '../policy/suppression';

/** `SUPPRESSED`: never sent, by a limit or a destination rule (see suppression.ts). */
export type LedgerState = 'PENDING' | 'SENT' | 'FAILED' | 'UNKNOWN' | 'SUPPRESSED';
export type TerminalState = Exclude<LedgerState, 'PENDING'>;

/** Why the last attempt handed its claim back. */
export type ReleaseReason = 'transient' | 'ambiguous';

/** One ledger item: one logical message. Times are epoch ms except `expiresAt` (epoch s, TTL). */
export interface LedgerRow {
  readonly key: string;
  readonly state: LedgerState;
  /** Fencing token: incremented by every claim and takeover. */
  readonly claimVersion: number;
  /** Random per processing attempt; lets a retried claim recognise its own row. */
  readonly ownerToken: string;
  readonly claimedAt: number;
  /** The claim is another worker's until then; set to "now" when a claim is released. */
  readonly leaseExpiresAt: number;
  readonly attempts: number;
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: Channel;
  readonly templateId: string;
  /**
   * The locale of the template variant the message is written in, fixed by its first claim (template-locale.ts).
   * Not part of the key: a redelivery asking for another language finds this row. Absent on rows of messages
   * whose template could not be found, and on rows written before locales.
   */
  readonly locale?: string;
  readonly messageClass: string;
  readonly occurredAt: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly providerMessageId?: string;
  /** SMS rows completed `SENT` by a provider call only: SNS's id again, key of the sparse SMS index. */
  readonly smsMessageId?: string;
  readonly failureReason?: string;
  /** Only on `SUPPRESSED` rows: which rule stopped the message (its detail is in `failureReason`). */
  readonly suppressionReason?: SuppressionReason;
  readonly lastRelease?: ReleaseReason;
  /**
   * When the latest attempt whose outcome is unknown could last have reached the provider
   * (epoch ms). Each ambiguous attempt moves it forward, so each gets its own evidence wait.
   */
  readonly lastAmbiguousAt?: number;
  /** The latest provider calls that failed the same way without an answer from the provider (see ambiguity-loop.ts). */
  readonly ambiguityStreak?: AmbiguityStreak;
  /** Latest delivery-status event recorded for this key, if any. */
  readonly deliveryStatus?: string;
  readonly deliveryStatusAt?: number;
  /** Tie-break between two statuses with the same event time (see `deliveryStatusRank`). */
  readonly deliveryStatusRank?: number;
  /** Where the status came from: `ses` (configuration-set event) or `sns-sms` (SMS delivery log). */
  readonly deliveryStatusSource?: string;
  /** Short, address-free detail of the status (for example the bounce type). */
  readonly deliveryStatusDetail?: string;
  /**
   * The claim version of the attempt whose e-mail the status is about (SES's `claim-version` tag).
   * Absent on statuses of untagged mail (sent before the tag existed) and SMS delivery logs.
   */
  readonly deliveryStatusClaimVersion?: number;
  /**
   * Present (true) while the status is an intermediate word (an End User Messaging SMS event not marked `isFinal`):
   * the provider's final word is still to come, so it never makes the message unsent or certainly undelivered.
   * Absent on a final status and on every SES and SNS status.
   */
  readonly deliveryStatusIntermediate?: true;
  /**
   * The first status recorded that proves the message was handed on (`sent` in STATUS_MEANINGS), of whichever
   * attempt: kept for good, so a later event (another attempt's refusal) that replaces `deliveryStatus` never takes
   * away the proof that one message went out.
   */
  readonly sendProvenBy?: string;
  /**
   * The first status recorded that proves the message reached the recipient (`delivered` in STATUS_MEANINGS' `fallback`
   * column, a final word), of whichever attempt: kept for good, like `sendProvenBy`, so a later uncertain word (an SES
   * `Transient/General` bounce, which an out-of-office reply is) that replaces `deliveryStatus` never turns "delivered"
   * into "possibly delivered". Only a certain later word on the only attempt outweighs it (delivery-proof.ts).
   */
  readonly deliveryProvenBy?: string;
  /** When the status Lambda last wrote a status (epoch ms; processing time, not event time). */
  readonly deliveryStatusRecordedAt?: number;
  /** When the row reached its terminal state. */
  readonly resolvedAt?: number;
  /**
   * What the reclaimer needs to send this message without its event: kept only while the row is PENDING
   * and in the pending index (see stored-request.ts), packed; a row written before packing holds the plain message.
   */
  readonly request?: StoredRequest;
  /** Present only while PENDING: shard of the sparse pending index. */
  readonly pendingShard?: string;
  /**
   * Only on rows of bulk classes: the destination's consent key (consent.ts; a hash, never the address),
   * kept after the row settles so that a provider's later word (an SES subscription event or bounce, an
   * SMS log line saying the number opted out) can be recorded against the address.
   */
  readonly consentKey?: string;
  /**
   * Only on the row of a message with a channel after it in its recipient's `fallback` list: what the next message is
   * sent from (core/fallback/fallback-plan.ts, packed; addresses and template data), written by the first claim and
   * kept for the row's retention, because the provider's word that ends it undelivered may come late.
   */
  readonly fallbackPlan?: Uint8Array;
  /** Beside `fallbackPlan`: the key of the next message (identifiers only), so that a reader needs no unpacking. */
  readonly fallbackKey?: string;
  /** Only on a fallback's row: the key of the message it replaces (its outcome event says it too). */
  readonly replaces?: string;
}

/** Proof of holding a row's claim; every outcome write is conditional on it. */
export interface Claim {
  readonly key: string;
  readonly ownerToken: string;
  readonly claimVersion: number;
}

export function isTerminal(state: LedgerState): state is TerminalState {
  return state !== 'PENDING';
}
