import { PENDING_SHARD_COUNT, pendingShardOf } from './ledger-table';
import type { Claim, LedgerRow, TerminalState } from './ledger-record';
import { isTerminal } from './ledger-record';
import type { TakeoverFields } from './send-ledger';
import type { PackedRequest, StoredRequest } from './stored-request';

/** Ledger timing, validated at cold start (see sender-config). */
export interface LedgerTiming {
  /** A claim older than this is presumed dead; must exceed the function timeout. */
  readonly claimTimeoutMs: number;
  /** How long rows live; must cover every redelivery and replay of a message. */
  readonly retentionMs: number;
}

/** The fields that identify and describe a message in its ledger row. */
export type ClaimSubject = Pick<
  LedgerRow,
  'key' | 'eventId' | 'recipientId' | 'channel' | 'templateId' | 'locale' | 'messageClass' | 'occurredAt' | 'consentKey' | 'fallbackPlan' | 'fallbackKey' | 'replaces'
>;

/** What a first claim is made of. */
export interface NewClaim {
  readonly subject: ClaimSubject;
  /** A fresh random token of this attempt. */
  readonly ownerToken: string;
  readonly nowMs: number;
  readonly timing: LedgerTiming;
  /**
   * Whether the claim enters the pending index: only a claim the queue may not bring back needs to
   * (see stale-claim-discovery.ts). @default true
   */
  readonly discoverable?: boolean;
  /**
   * The message for the reclaimer, kept only by a discoverable claim: any other claim's message is still in
   * the queue, so the happy path's row holds identifiers only (see stored-request.ts). @default none
   */
  readonly request?: StoredRequest;
  /** Shards of the pending index (`PENDING_INDEX_SHARDS`). @default PENDING_SHARD_COUNT */
  readonly pendingShards?: number;
}

/** The row a first claim writes: PENDING, version 1, leased to this attempt. */
export function newClaimRow({ subject, ownerToken, nowMs, timing, discoverable = true, request, pendingShards = PENDING_SHARD_COUNT }: NewClaim): LedgerRow {
  return {
    ...subject,
    ...(discoverable && request !== undefined ? { request } : {}),
    state: 'PENDING',
    claimVersion: 1,
    ownerToken,
    claimedAt: nowMs,
    leaseExpiresAt: nowMs + timing.claimTimeoutMs,
    attempts: 1,
    createdAt: nowMs,
    updatedAt: nowMs,
    expiresAt: ttlSeconds(nowMs, timing),
    ...(discoverable ? { pendingShard: pendingShardOf(subject.key, pendingShards) } : {}),
  };
}

/**
 * TTL in epoch seconds, rounded up so a row never expires before its horizon: the row's first claim (`createdAt`)
 * plus the retention, whatever is written later (a takeover, the outcome), so that no row lives past it.
 */
export function ttlSeconds(firstClaimAtMs: number, timing: LedgerTiming): number {
  return Math.ceil((firstClaimAtMs + timing.retentionMs) / 1000);
}

/** DynamoDB deletes expired items lazily (up to days later); such a row counts as absent. */
export function isExpired(row: Pick<LedgerRow, 'expiresAt'>, nowMs: number): boolean {
  return row.expiresAt * 1000 <= nowMs;
}

/** What to do when the claim found a row already there. */
export type ExistingRowDecision =
  | { readonly kind: 'done'; readonly state: TerminalState }
  | { readonly kind: 'back-off'; readonly leaseRemainingMs: number }
  | { readonly kind: 'take-over'; readonly lastAmbiguousAt: number | undefined }
  | { readonly kind: 'expired' };

/**
 * The ledger state machine, as a pure function of the row and the time.
 *
 * A PENDING row whose lease ran out without a release had an owner that died somewhere
 * between claim and outcome: whether it reached the provider is unknown, so the takeover
 * is ambiguous, and the latest moment it could have sent is its lease's end (the claim
 * timeout exceeds the function timeout). A row released after a transient failure was
 * certainly not sent by that attempt, but keeps any earlier attempt's ambiguity.
 *
 * `abandonedUnsent` says the row's claim is one this execution environment made, certainly never
 * sent, and could not hand back (the ledger failed; see functions/delivery/kept-ledger-writes.ts): it
 * counts as released, whatever its lease says, since its owner is the one asking.
 */
export function decideOnExistingRow(row: LedgerRow, nowMs: number, { abandonedUnsent = false }: { readonly abandonedUnsent?: boolean } = {}): ExistingRowDecision {
  if (isExpired(row, nowMs)) return { kind: 'expired' };
  if (isTerminal(row.state)) return { kind: 'done', state: row.state };
  if (abandonedUnsent) return { kind: 'take-over', lastAmbiguousAt: row.lastAmbiguousAt };
  if (row.leaseExpiresAt > nowMs) return { kind: 'back-off', leaseRemainingMs: row.leaseExpiresAt - nowMs };
  if (row.lastRelease !== undefined) return { kind: 'take-over', lastAmbiguousAt: row.lastAmbiguousAt };
  return { kind: 'take-over', lastAmbiguousAt: row.leaseExpiresAt };
}

/** What a takeover of an existing row is made of. */
export interface Takeover {
  /** The row as read: the takeover is fenced on its claim version. */
  readonly row: LedgerRow;
  /** A fresh random token of this attempt. */
  readonly ownerToken: string;
  readonly nowMs: number;
  readonly timing: LedgerTiming;
  /** The latest moment an earlier attempt may have reached the provider, if any (see decideOnExistingRow). */
  readonly lastAmbiguousAt: number | undefined;
  /** Whether the row must be in the pending index after the takeover (a row already in it stays). @default true */
  readonly discoverable?: boolean;
  /**
   * The packed message, when {@link takeoverNeedsRequest} says the row needs it and this attempt has it.
   * @default none: the row keeps what it holds
   */
  readonly request?: PackedRequest;
  /** Shards of the pending index (`PENDING_INDEX_SHARDS`). @default PENDING_SHARD_COUNT */
  readonly pendingShards?: number;
}

/** The fields a takeover writes, fenced on the old row's claim version. */
export function takeoverFields({ row, ownerToken, nowMs, timing, lastAmbiguousAt, discoverable = true, request, pendingShards = PENDING_SHARD_COUNT }: Takeover): TakeoverFields {
  return {
    ...(request !== undefined ? { request } : {}),
    expectedClaimVersion: row.claimVersion,
    claimVersion: row.claimVersion + 1,
    ownerToken,
    claimedAt: nowMs,
    leaseExpiresAt: nowMs + timing.claimTimeoutMs,
    attempts: row.attempts + 1,
    lastAmbiguousAt,
    // From the first claim, never from this takeover: each takeover moved the TTL out again (review defect 3).
    expiresAt: ttlSeconds(row.createdAt, timing),
    pendingShard: discoverable && row.pendingShard === undefined ? pendingShardOf(row.key, pendingShards) : undefined,
  };
}

/**
 * Whether a takeover must give the row its message: the row is in the pending index after it (already, or
 * entering now), so the reclaimer may have to send it without the event, and the row keeps none (its claim
 * was made where the queue still held the message). Any other takeover's message comes back with the queue.
 */
export function takeoverNeedsRequest(row: Pick<LedgerRow, 'pendingShard' | 'request'>, { discoverable = true }: { readonly discoverable?: boolean } = {}): boolean {
  return (discoverable || row.pendingShard !== undefined) && row.request === undefined;
}

export function claimOf(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): Claim {
  return { key: row.key, ownerToken: row.ownerToken, claimVersion: row.claimVersion };
}
