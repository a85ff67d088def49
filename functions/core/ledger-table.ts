/**
 * The one definition of the send-ledger table: the CDK stack, the local runner and
 * the DynamoDB adapter all read names from here, so they cannot drift apart.
 */
export const LEDGER_TABLE = {
  partitionKey: 'pk',
  ttlAttribute: 'expiresAt',
  /** Sparse index holding only PENDING rows, sharded so no partition runs hot. */
  pendingIndex: {
    name: 'pending-by-shard',
    partitionKey: 'pendingShard',
    sortKey: 'claimedAt',
  },
  /** Support look-ups: every message of one business event. */
  eventIndex: {
    name: 'by-event-id',
    partitionKey: 'eventId',
    sortKey: 'pk',
  },
} as const;

/** Number of shards of the pending index. Changing it only affects new claims. */
export const PENDING_SHARD_COUNT = 16;

/** Shard of a key in the pending index: stable, spread evenly because keys are hex hashes. */
export function pendingShardOf(key: string, shardCount: number = PENDING_SHARD_COUNT): string {
  const bucket = Number.parseInt(key.slice(0, 8), 16) % shardCount;
  return String(bucket);
}
