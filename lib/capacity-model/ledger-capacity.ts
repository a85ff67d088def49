import type { Channel } from '../../functions/core/event/idempotency-key';
import type { MessageClass } from '../../functions/core/policy/message-class';
import { groupLimits } from '../../functions/core/policy/message-limits';

/**
 * DynamoDB write and read units per message by path, and what they add up to on the table and on its
 * hottest partitions: the arithmetic of docs/scale.md and the prediction the scale simulation checks its
 * measured units against. On-demand units: an item up to 1 KB costs 1 write unit per write (a failed
 * condition included), 1 more per index entry added or removed; a strongly consistent read up to 4 KB
 * 1 read unit. A first receive's ledger writes are one unit each whatever the message's size: its claim
 * keeps no rendered message, so claim and outcome stay under 1 KB, and a limit counter holds at most 1 KB
 * (docs/design/limits-and-destinations.md, "Counted once per logical message"). Only a discoverable claim (a last receive) keeps
 * the message, packed (stored-request.ts), and is billed by its size: {@link ledgerUnits}' `discoverableClaimBytes`.
 */

/** The ways one message meets the ledger (docs/design/ledger.md, "Table keys and what each path writes"). */
export const LEDGER_PATHS = [
  'delivered',
  'delivered-last-receive',
  'producer-duplicate',
  'redelivered-settled',
  'stale-takeover',
  'transient-then-delivered',
  'backed-off',
  'suppressed-by-last-counter',
] as const;
export type LedgerPath = (typeof LEDGER_PATHS)[number];

/** Units one message costs on one path. */
export interface LedgerUnits {
  readonly writeUnits: number;
  readonly readUnits: number;
}

/** Each limited scope (one counter item) a message of `messageClass` on `channel` passes: number blocks count SMS only. */
export function limitCounters(messageClass: Pick<MessageClass, 'limits'>, channel: Channel): number {
  return groupLimits(messageClass.limits).filter((group) => group.scope !== 'number-block' || channel === 'sms').length;
}

/** The SMS message-id index entry a delivered SMS adds (delivery-status logs find their row by it). */
function smsIndexEntry(channel: Channel): number {
  return channel === 'sms' ? 1 : 0;
}

/** DynamoDB bills a write 1 unit per started KB of the item (an update: of the larger of the item before and after). */
const BYTES_PER_WRITE_UNIT = 1024;

/** Options of {@link ledgerUnits}. */
export interface LedgerUnitsOptions {
  /**
   * Bytes of a discoverable claim's item by DynamoDB's item-size rules, its packed message included
   * (`itemBytes` of local/item-bytes.ts): what the 'delivered-last-receive' path's claim is billed on, and its
   * outcome too (an update billed on the larger item, the claim before it; the outcome removes the message).
   * An HTML order confirmation of 1.9, 15.4 and 87.7 KB claims in 1,201, 3,581 and 6,952 bytes
   * (bench/results/message-sizes.json, `lastReceive.claimItemBytes`).
   * @default 1024 (a claim of at most 1 KB: an SMS, a push or a short e-mail)
   */
  readonly discoverableClaimBytes?: number;
}

/**
 * Write and read units of one message of `messageClass` on `channel` taking `path`, as the sender writes them
 * (delivery-status events come after: {@link deliveryStatusUnits}).
 */
export function ledgerUnits(path: LedgerPath, messageClass: Pick<MessageClass, 'limits'>, channel: Channel, options: LedgerUnitsOptions = {}): LedgerUnits {
  const k = limitCounters(messageClass, channel);
  const sms = smsIndexEntry(channel);
  switch (path) {
    // Claim, each counter, outcome.
    case 'delivered':
      return { writeUnits: 2 + k + sms, readUnits: 0 };
    // The claim keeps the message packed, so claim and outcome are billed by its size; each counter; the
    // pending-index entry the claim adds and the outcome removes (a keys-only index: 1 unit each whatever the claim).
    case 'delivered-last-receive': {
      const claim = Math.max(1, Math.ceil((options.discoverableClaimBytes ?? BYTES_PER_WRITE_UNIT) / BYTES_PER_WRITE_UNIT));
      return { writeUnits: 2 * claim + k + sms + 2, readUnits: 0 };
    }
    // A new SQS message of a settled event: its claim fails the condition (DynamoDB returns the item with it).
    case 'producer-duplicate':
      return { writeUnits: 1, readUnits: 0 };
    // SQS brings a settled message back: the redelivery reads the row first and claims nothing.
    case 'redelivered-settled':
      return { writeUnits: 0, readUnits: 1 };
    // A worker died after counting: the redelivery reads, takes over, finds itself counted (each counter billed), records.
    case 'stale-takeover':
      return { writeUnits: 2 + k + sms, readUnits: 1 };
    // Claim, counters, release; then the redelivery reads, takes over, counts again (finds itself), records.
    case 'transient-then-delivered':
      return { writeUnits: 4 + 2 * k + sms, readUnits: 1 };
    // Another worker holds a fresh claim: a first receive's claim fails (a redelivery would read: 1 read unit instead).
    case 'backed-off':
      return { writeUnits: 1, readUnits: 0 };
    // Refused by its last counter (every counter billed, the refusing one too), then SUPPRESSED: never sent.
    case 'suppressed-by-last-counter':
      return { writeUnits: 2 + k, readUnits: 0 };
  }
}

/**
 * Units the status Lambda writes per delivered message: one conditional UpdateItem per event. SES sends
 * Send and Delivery for a delivered e-mail (the configuration set's other events are failures); an SMS
 * gets SUCCESS or FAILURE only with `smsDeliveryStatusLogs`, found through the keys-only SMS index
 * (an eventually consistent query: half a read unit); push has none.
 */
export function deliveryStatusUnits(channel: Channel, smsDeliveryStatusLogs: boolean): LedgerUnits {
  if (channel === 'email') return { writeUnits: 2, readUnits: 0 };
  if (channel === 'sms' && smsDeliveryStatusLogs) return { writeUnits: 1, readUnits: 0.5 };
  return { writeUnits: 0, readUnits: 0 };
}

/** DynamoDB's most write units per second on one partition (AWS: "each partition ... 1,000 write units"). */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1000;
/** DynamoDB's most read units per second on one partition. */
export const PARTITION_READ_UNITS_PER_SECOND = 3000;

/**
 * Write units per second on the one partition that holds every row of one event (the key's event part),
 * while its messages go out: one SQS record, so one invocation with at most `maxConcurrentSends` in flight,
 * each writing its claim and outcome there at one message per `messageMs`. Counters live elsewhere.
 */
export function eventPartitionWriteUnitsPerSecond(input: { readonly maxConcurrentSends: number; readonly messages: number; readonly messageMs: number }): number {
  const inFlight = Math.min(input.maxConcurrentSends, input.messages);
  return (2 * inFlight * 1000) / input.messageMs;
}

/**
 * Pending-index shards needed for every claim at `messagesPerSecond` to be discoverable at once (a backlog meeting its
 * last receive together): each such message adds and removes one entry (2 index write units) in its shard, and a
 * shard is one index partition key whose sort key (`claimedAt`) only grows, which DynamoDB cannot split for heat.
 */
export function pendingShardsNeeded(messagesPerSecond: number): number {
  return Math.ceil((2 * messagesPerSecond) / PARTITION_WRITE_UNITS_PER_SECOND);
}

/** Discoverable claims per second the pending index absorbs with `shards` shards before its partitions throttle. */
export function discoverableClaimsPerSecond(shards: number): number {
  return (shards * PARTITION_WRITE_UNITS_PER_SECOND) / 2;
}
