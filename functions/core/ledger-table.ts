/**
 * The one definition of the send-ledger table: the CDK stack, the local runner and
 * the DynamoDB adapter all read names from here, so they cannot drift apart.
 */
export const LEDGER_TABLE = {
  partitionKey: 'pk',
  ttlAttribute: 'expiresAt',
  /**
   * Sparse index holding only PENDING rows, sharded so no partition runs hot. Keys only: the
   * reclaimer re-reads every row with a consistent read anyway, and the pending row's rendered
   * message (addresses, content) is not copied into the index.
   */
  pendingIndex: {
    name: 'pending-by-shard',
    partitionKey: 'pendingShard',
    sortKey: 'claimedAt',
    projection: 'KEYS_ONLY',
  },
  /** Support look-ups: every message of one business event (keys only; rows are read by key). */
  eventIndex: {
    name: 'by-event-id',
    partitionKey: 'eventId',
    sortKey: 'pk',
    projection: 'KEYS_ONLY',
  },
  /**
   * SNS SMS delivery-status logs carry only SNS's message id and find their row here. Sparse:
   * only SMS rows the sender completed `SENT` carry `smsMessageId` (a copy of `providerMessageId`),
   * so e-mail rows, failures and evidence placeholders cost no index write. SES events carry our
   * key as a tag and need no index. Keys only: the status Lambda reads the row by key afterwards.
   */
  smsMessageIndex: {
    name: 'by-sms-message-id',
    partitionKey: 'smsMessageId',
    projection: 'KEYS_ONLY',
  },
} as const;

/** Number of shards of the pending index. Changing it only affects new claims. */
export const PENDING_SHARD_COUNT = 16;

/** Shard of a key in the pending index: stable, and even for any key (FNV-1a, 32 bit). */
export function pendingShardOf(key: string, shardCount: number = PENDING_SHARD_COUNT): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return String(hash % shardCount);
}
