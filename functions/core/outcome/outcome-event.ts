import { createHash } from 'node:crypto';
import type { Channel } from '../event/idempotency-key';
import type { LaneName } from '../policy/send-lanes';
import { redactAddresses } from '../provider/provider-outcome';
import type { DeliveryFact } from '../provider/delivery-status-meaning';
import { deliveryFactOf, type OutcomeRow, type OutcomeState, type VisibleOutcome } from './outcome-state';

/** The `source` of every outcome event on the bus (`aws.` is AWS's own; this one is ours). */
export const OUTCOME_EVENT_SOURCE = 'idempotent-notifier';
/** The `detail-type` of every outcome event: one type, the state is a field of the detail to match on. */
export const OUTCOME_DETAIL_TYPE = 'Message outcome';
/** Bumped when a field of the detail changes meaning or goes away; a new optional field does not bump it. */
export const OUTCOME_SCHEMA_VERSION = 1;

/** The longest `reason` an event carries (the ledger keeps provider reasons to 500 characters already). */
export const MAX_OUTCOME_REASON_LENGTH = 500;

/**
 * The detail of one outcome event: which message, what became of it and when. Identifiers only: never an
 * address, a number, an endpoint, a body or the template's data (the row's `request` and `consentKey` are not
 * read, and `reason` is scrubbed of anything that looks like an address or a number).
 */
export interface OutcomeEventDetail {
  readonly version: typeof OUTCOME_SCHEMA_VERSION;
  /** The same for every delivery of one state change, different for any other: deduplicate by it. */
  readonly outcomeId: string;
  /**
   * Orders two events of one key (EventBridge does not keep order): the greater is the later state. Digits of a
   * fixed length, so strings compare as the numbers do.
   */
  readonly sequence: string;
  /** The idempotency key: the one logical message (an event, a recipient, a channel, a template). */
  readonly key: string;
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: Channel;
  readonly templateId: string;
  readonly messageClass: string;
  /** The lane the message travelled in; absent when the stack runs one queue. */
  readonly lane?: LaneName;
  readonly state: OutcomeState;
  /**
   * Which of the three facts a state from the provider's word (`DELIVERED`, `BOUNCED`, `COMPLAINED`) is:
   * `certainly-undelivered`, `possibly-delivered` (a `BOUNCED` the provider leaves open: SNS's SMS `FAILURE`,
   * `TEXT_UNKNOWN`, `TEXT_CARRIER_UNREACHABLE`, a transient `General` or undetermined SES bounce, or a refusal of a resend after an attempt whose
   * outcome is unknown) or `delivered`. Absent on the ledger's own states. Not part of `outcomeId`: it is read from
   * the same row as the state and the sequence, so one state change has one id, the one it had before the field.
   */
  readonly delivery?: DeliveryFact;
  /**
   * Why, where there is a why, always starting with a code a rule can match by prefix: a failure's reason
   * (`InvalidAddress: ...`), a suppression's rule and detail (`Unsubscribed: ...`), the provider's status and its
   * detail (`Bounce: Permanent/General`).
   */
  readonly reason?: string;
  /** The provider's id of the message, where it gave one. */
  readonly providerMessageId?: string;
  /** The claim version (fencing token) the row holds: how many attempts the ledger granted. */
  readonly claimVersion: number;
  /** When the business event happened (the producer's `occurredAt`). */
  readonly occurredAt: string;
  /** When the message reached this state: the ledger's write, or the provider's event time. */
  readonly stateAt: string;
  /** Only on a fallback's events: the key of the message it replaces (the recipient's channel before it; docs/design/fallback.md). */
  readonly replaces?: string;
}

export interface OutcomeEventOptions {
  /** The lane of a message class. @default none: the event carries no lane */
  readonly laneOf?: (messageClass: string) => LaneName;
}

/** The event detail for `outcome`, a change {@link outcomeChange} found on `row`. */
export function outcomeEventDetail(row: OutcomeRow, outcome: VisibleOutcome, options: OutcomeEventOptions = {}): OutcomeEventDetail {
  const sequence = outcomeSequence(row);
  const reason = reasonOf(row, outcome);
  const delivery = outcome.source === 'provider' ? deliveryFactOf(row) : undefined;
  return {
    version: OUTCOME_SCHEMA_VERSION,
    outcomeId: outcomeIdOf(row.key, outcome.state, sequence),
    sequence,
    key: row.key,
    eventId: row.eventId,
    recipientId: row.recipientId,
    channel: row.channel,
    templateId: row.templateId,
    messageClass: row.messageClass,
    ...(options.laneOf ? { lane: options.laneOf(row.messageClass) } : {}),
    state: outcome.state,
    ...(delivery ? { delivery } : {}),
    ...(reason ? { reason } : {}),
    ...(row.providerMessageId ? { providerMessageId: row.providerMessageId } : {}),
    claimVersion: row.claimVersion,
    occurredAt: row.occurredAt,
    stateAt: new Date(outcome.stateAtMs).toISOString(),
    ...(row.replaces ? { replaces: row.replaces } : {}),
  };
}

const TIME_DIGITS = 15;
const RANK_DIGITS = 2;

/**
 * Where the row is in its life, as digits that grow with every write a producer can see, on no clock but the
 * row's own fields:
 * 1. `createdAt`: a row re-claimed after its retention is a new life, later than every state of the old one;
 * 2. a stage: 0 until the ledger's state moves on from its first settled state (`SUPPRESSED` after `SENT`), 1 after;
 * 3. the provider's latest status time and rank: the status Lambda only ever writes a later (time, rank) than the
 *    row holds, so each provider state it adds sorts after the ones before.
 * Times from different writers' clocks are never compared with each other, so clock skew cannot reorder a key's
 * events.
 */
export function outcomeSequence(row: OutcomeRow): string {
  const stage = row.state === 'SUPPRESSED' ? 1 : 0;
  return (
    digits(row.createdAt, TIME_DIGITS) + String(stage) + digits(row.deliveryStatusAt ?? 0, TIME_DIGITS) + digits(row.deliveryStatusRank ?? 0, RANK_DIGITS)
  );
}

/** The length of every sequence. */
export const OUTCOME_SEQUENCE_LENGTH = TIME_DIGITS + 1 + TIME_DIGITS + RANK_DIGITS;

function digits(value: number, width: number): string {
  const whole = Math.min(Math.max(0, Math.floor(value)), 10 ** width - 1);
  return String(whole).padStart(width, '0');
}

/**
 * A hash of the key, the state and the sequence: a redelivered stream record or a replayed batch gives the
 * same id, any other state change another (32 hex characters, 128 bits of SHA-256; JSON-encoded material, so
 * no two different triples share an input).
 */
export function outcomeIdOf(key: string, state: OutcomeState, sequence: string): string {
  return createHash('sha256').update(JSON.stringify(['notifier-outcome-v1', key, state, sequence]), 'utf8').digest('hex').slice(0, 32);
}

function reasonOf(row: OutcomeRow, outcome: VisibleOutcome): string | undefined {
  const text = rawReason(row, outcome);
  return text === undefined || text === '' ? undefined : redactAddresses(redactLeftovers(text)).slice(0, MAX_OUTCOME_REASON_LENGTH);
}

/**
 * What redactAddresses leaves that must not reach the bus either: a push endpoint's ARN (it names one device), and
 * any word holding an `@` (an address whose local part has a quote or another character that function stops at).
 */
function redactLeftovers(text: string): string {
  return text.replace(/arn:[^\s:]*:sns:\S*/g, '<endpoint>').replace(/\S*@\S*/g, '<email>');
}

function rawReason(row: OutcomeRow, outcome: VisibleOutcome): string | undefined {
  if (outcome.source === 'provider') {
    return row.deliveryStatusDetail ? `${row.deliveryStatus}: ${row.deliveryStatusDetail}` : row.deliveryStatus;
  }
  if (outcome.state === 'SENT') return undefined;
  // A suppression's detail starts with its rule (`Unsubscribed: ...`), a failure's with the error's name.
  return row.failureReason ?? row.suppressionReason;
}
