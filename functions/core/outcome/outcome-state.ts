import type { LedgerRow } from '../ledger/ledger-record';
import { standingDeliveryProof } from '../provider/delivery-proof';
import { STATUS_MEANINGS, statusDeliveryFact, statusOutcome, type DeliveryFact, type StatusOutcome } from '../provider/delivery-status-meaning';

/**
 * What a producer hears about one logical message: the ledger's settled states, and the provider's own word
 * about a message it accepted (delivered, bounced, complained of). Never `PENDING`: a claim, a takeover or a
 * release is the sender's business, not the producer's.
 */
export const OUTCOME_STATES = ['SENT', 'DELIVERED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED', 'UNKNOWN'] as const;
export type OutcomeState = (typeof OUTCOME_STATES)[number];

/**
 * What each provider status (SES event types, SNS SMS statuses, End User Messaging event types; see
 * delivery-status.ts) says became of an accepted message is its `outcome` in STATUS_MEANINGS
 * (provider/delivery-status-meaning.ts): delivered, bounced or complained of. Every other status (`Send`,
 * `DeliveryDelay`, `TEXT_QUEUED`) says nothing a producer acts on, and leaves the row's state as it is. Bounced
 * includes the final refusals of a message the provider had accepted (End User Messaging's `TEXT_BLOCKED`,
 * `TEXT_INVALID`, `TEXT_TTL_EXPIRED`, its blocks of the body or by the protect configuration; SES `Reject` and
 * `RenderingFailure`), which primary-verdict.ts reads as certainly undelivered or kept from fallback: without them the
 * write that records one on a SENT row was no outcome, so neither the producer nor the fallback trigger heard of it.
 * Which of the three facts a provider state is, the event says beside it (deliveryFactOf).
 */
type ProviderOutcome = Exclude<StatusOutcome, 'nothing'>;

/** The provider statuses that make a producer-visible state (the stream filter lets their writes through). */
export const PROVIDER_OUTCOME_STATUSES: readonly string[] = Object.keys(STATUS_MEANINGS).filter((status) => statusOutcome(status) !== 'nothing');

/**
 * The provider's word on `row`, if it makes a state: a failure only when final (an End User Messaging event not
 * marked `isFinal`, the row's `deliveryStatusIntermediate`, is no outcome yet: the carrier may still deliver, and
 * the final event is the one a producer hears of,
 * https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html).
 */
function providerOutcome(row: OutcomeRow): ProviderOutcome | undefined {
  const outcome = row.deliveryStatus === undefined ? 'nothing' : statusOutcome(row.deliveryStatus);
  if (outcome === 'nothing') return undefined;
  return outcome === 'BOUNCED' && row.deliveryStatusIntermediate === true ? undefined : outcome;
}

/**
 * How strong the provider's word is, by what it proves: a later, weaker status (an open after a complaint) takes
 * nothing back. A `BOUNCED` the provider leaves open (possibly delivered) proves least, so a delivery, an open or a
 * click after it is heard, and so is a certain failure; a certain `BOUNCED` outranks `DELIVERED` (a late permanent
 * bounce after a delivery is heard, as before); a complaint outranks all. Until 2026-12-06 every `BOUNCED` outranked
 * `DELIVERED`, so a producer told "bounced, possibly delivered" never heard the delivery the fallback read on the
 * same row. A `BOUNCED` whose fact is `delivered` (an out-of-office bounce after a proven delivery: deliveryFactOf)
 * ranks with the uncertain ones: it adds nothing to the delivery already heard, so it is no event. When that bounce
 * came first and the older delivery only adds its proof, no event follows either: the proof-only write changes
 * neither the state nor the sequence (outcome-event.ts), so a second event would repeat the first one's `outcomeId`.
 */
function providerStrength(state: ProviderOutcome, delivery: DeliveryFact | undefined): number {
  switch (state) {
    case 'BOUNCED':
      return delivery === 'certainly-undelivered' ? 3 : 1;
    case 'DELIVERED':
      return 2;
    case 'COMPLAINED':
      return 4;
  }
}

/** The fields of a ledger row an outcome is read from; nothing else of the row is ever looked at. */
export type OutcomeRow = Pick<
  LedgerRow,
  | 'key'
  | 'state'
  | 'claimVersion'
  | 'eventId'
  | 'recipientId'
  | 'channel'
  | 'templateId'
  | 'messageClass'
  | 'occurredAt'
  | 'createdAt'
  | 'updatedAt'
  | 'resolvedAt'
  | 'providerMessageId'
  | 'failureReason'
  | 'suppressionReason'
  | 'deliveryStatus'
  | 'deliveryStatusAt'
  | 'deliveryStatusRank'
  | 'deliveryStatusDetail'
  | 'deliveryStatusIntermediate'
  | 'deliveryProvenBy'
  | 'lastAmbiguousAt'
  | 'replaces'
>;

/** The state a producer sees on a row, and where it comes from. */
export interface VisibleOutcome {
  readonly state: OutcomeState;
  /** `ledger`: the row's own state; `provider`: a delivery-status event on a sent (or possibly sent) row. */
  readonly source: 'ledger' | 'provider';
  /** When the row reached this state, epoch ms: the outcome write's time, or the provider's event time. */
  readonly stateAtMs: number;
}

/**
 * The state a producer sees on `row`, or undefined while nothing is settled (`PENDING`).
 *
 * The provider's word refines only `SENT` and `UNKNOWN`, the rows whose message went or may have gone out:
 * an `UNKNOWN` marketing e-mail that SES then delivers is `DELIVERED`. `FAILED` and `SUPPRESSED` stay as the
 * ledger says (nothing of ours reached the recipient for them to be delivered).
 */
export function visibleOutcome(row: OutcomeRow): VisibleOutcome | undefined {
  if (row.state === 'PENDING') return undefined;
  const provider = providerOutcome(row);
  if (provider !== undefined && (row.state === 'SENT' || row.state === 'UNKNOWN')) {
    return { state: provider, source: 'provider', stateAtMs: row.deliveryStatusAt ?? row.updatedAt };
  }
  return { state: row.state, source: 'ledger', stateAtMs: ledgerStateAtMs(row) };
}

/**
 * Which of the three facts a provider state on `row` is ({@link visibleOutcome} with source `provider`): the row's
 * status read through its STATUS_MEANINGS row (statusDeliveryFact: the `fallback` column and a bounce's detail), as
 * primary-verdict.ts reads it, so a producer and a fallback never tell two facts of one row. A failure is certain
 * only as the final word on the only attempt that may have gone: a BOUNCED is heard only when final, and an earlier
 * attempt whose outcome is unknown (`lastAmbiguousAt`) may still have arrived, so it is then possibly delivered.
 * A proof of delivery kept on the row (`deliveryProvenBy`) that still stands (delivery-proof.ts, the rule
 * primary-verdict.ts reads too: outcome/ may not import fallback/) makes it `delivered`, whatever uncertain word came
 * after: a BOUNCED of an out-of-office reply after an SES `Delivery` is heard as `delivery: delivered` (until
 * 2026-12-06 it was `possibly-delivered`, while the message had arrived).
 * Undefined on a row with no provider state: the ledger's own states say their fact themselves.
 */
export function deliveryFactOf(row: OutcomeRow): DeliveryFact | undefined {
  if (row.deliveryStatus === undefined || providerOutcome(row) === undefined) return undefined;
  if (standingDeliveryProof(row) !== undefined) return 'delivered';
  const fact = statusDeliveryFact(row.deliveryStatus, row.deliveryStatusDetail);
  return fact === 'certainly-undelivered' && row.lastAmbiguousAt !== undefined ? 'possibly-delivered' : fact;
}

/**
 * A state reached from `SENT` later (`SUPPRESSED` when the provider then says the recipient had withdrawn
 * consent) is stamped by `updatedAt`; the first settled state by `resolvedAt`.
 */
function ledgerStateAtMs(row: OutcomeRow): number {
  if (row.state === 'SUPPRESSED') return row.updatedAt;
  return row.resolvedAt ?? row.updatedAt;
}

/**
 * Whether the write from `before` to `after` is a change a producer acts on, and which: undefined for a claim,
 * a takeover, a release, a status that says nothing new, a repeat of the same state, or a row's removal.
 * - A new row, a new life of a row (re-claimed after its retention: another `createdAt`) or a first settled
 *   state is a change.
 * - A change of the ledger's state (`SENT` to `SUPPRESSED`) is a change.
 * - On the same ledger state, the provider's word is a change only when it says more than before: bounced but
 *   possibly delivered, then delivered, then certainly bounced, then complained of (providerStrength). A later
 *   status that proves less (an open after a complaint, a delay after a delivery) takes nothing back, so it is no
 *   event.
 */
export function outcomeChange(before: OutcomeRow | undefined, after: OutcomeRow | undefined): VisibleOutcome | undefined {
  if (after === undefined) return undefined;
  const now = visibleOutcome(after);
  if (now === undefined) return undefined;
  if (before === undefined || before.createdAt !== after.createdAt) return now;
  const earlier = visibleOutcome(before);
  if (earlier === undefined || before.state !== after.state) return now;
  return strength(now, after) > strength(earlier, before) ? now : undefined;
}

function strength(outcome: VisibleOutcome, row: OutcomeRow): number {
  return outcome.source === 'provider' ? providerStrength(outcome.state as ProviderOutcome, deliveryFactOf(row)) : 0;
}
