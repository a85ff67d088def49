import { EVENT_PART_LENGTH, eventPartOf } from '../event/idempotency-key';

/**
 * The one definition of the send-ledger table: the CDK stack, the local runner and
 * the DynamoDB adapter all read names from here, so they cannot drift apart. The table also holds
 * the limit counters, under partition keys starting `limit#` (adapters/dynamodb-limit-store.ts).
 */
export const LEDGER_TABLE = {
  /** The key's event part: every message of one event in one partition, read by one Query. */
  partitionKey: 'pk',
  /** The whole idempotency key. */
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  /**
   * Sparse index of claims the reclaimer must be able to find, sharded so no partition runs hot.
   * Only a claim whose message may not come back from the queue carries `pendingShard` (see
   * stale-claim-discovery.ts): a first delivery costs no index write. Keys only: the reclaimer
   * re-reads every row with a consistent read anyway, and the pending row's rendered message
   * (addresses, content) is not copied into the index.
   */
  pendingIndex: {
    name: 'pending-by-shard',
    partitionKey: 'pendingShard',
    sortKey: 'claimedAt',
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

/** A ledger item's primary key: derived from the idempotency key alone. */
export interface LedgerItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** Where a key's row lives: its event part as the partition, the whole key as the sort key. */
export function ledgerItemKey(key: string): LedgerItemKey {
  return { pk: key.slice(0, EVENT_PART_LENGTH), sk: key };
}

/** The partition holding every row of one event (shared, rarely, with other events: filter on eventId). */
export function eventPartitionKey(eventId: string): string {
  return eventPartOf(eventId);
}

/**
 * Shards of the pending index unless configured (`PENDING_INDEX_SHARDS`). A claim is indexed in the shard its
 * key hashes to, and the reclaimer walks every shard up to the configured count, so the count only grows:
 * fewer shards than a claim was indexed with would leave it where the reclaimer no longer looks.
 */
export const PENDING_SHARD_COUNT = 16;

/** The most shards the pending index may be spread over: the reclaimer queries each one every run. */
export const MAX_PENDING_SHARDS = 1000;

/** Shard of a key in the pending index: stable, and even for any key (FNV-1a, 32 bit). */
export function pendingShardOf(key: string, shardCount: number = PENDING_SHARD_COUNT): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return String(hash % shardCount);
}
