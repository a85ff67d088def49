import type { LedgerRow } from './ledger-record';

/** Opaque position in a paginated index query (DynamoDB's LastEvaluatedKey). */
export type PageCursor = Readonly<Record<string, unknown>>;

/** What the keys-only pending index holds for one row. */
export type StalePendingEntry = Pick<LedgerRow, 'key' | 'claimedAt'>;

/** One page of stale PENDING rows from one shard. */
export interface StalePendingPage {
  readonly rows: readonly StalePendingEntry[];
  /** Where the next page starts; `undefined` when the shard is exhausted. */
  readonly cursor: PageCursor | undefined;
}

/** PENDING rows by shard of the sparse pending index, oldest claim first. */
export interface StalePendingSource {
  /**
   * One page of the shard's PENDING rows whose `claimedAt` is before `claimedBefore`
   * (a key-condition query on the index sort key; never a scan). Index reads are eventually
   * consistent: callers re-read a row before acting on it.
   */
  listStalePending(shard: string, claimedBefore: number, limit: number, cursor?: PageCursor): Promise<StalePendingPage>;
}
