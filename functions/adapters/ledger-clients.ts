import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SenderConfig } from '../core/sender-config';
import type { SendLedger } from '../core/ledger/send-ledger';
import type { StalePendingSource } from '../core/ledger/stale-pending';
import { DynamoDbLedger } from './dynamodb-ledger';
import { DynamoDbSendLedger } from './dynamodb-send-ledger';
import { DynamoDbStalePending } from './dynamodb-stale-pending';
import { LedgerTableClient } from './ledger-table-client';
import { DynamoDbConsentStore } from './dynamodb-consent-store';
import { DynamoDbLimitStore } from './dynamodb-limit-store';
import { ledgerClientConfig } from './ledger-client-config';

// The ledger table's adapters, built from validated configuration. Endpoints come from the SDK's own
// standard variables (AWS_ENDPOINT_URL_DYNAMODB, or AWS_ENDPOINT_URL).

/**
 * A DynamoDB client with the ledger's settings. A Lambda builds one and hands it to every adapter of the table
 * it uses: one client to construct at a cold start, one connection pool.
 */
export function createLedgerTableClient(): DynamoDBClient {
  // Every ledger write recognises its own earlier success (owner token), so SDK retries are safe here.
  return new DynamoDBClient(ledgerClientConfig());
}

/** The send ledger (and its pending index, status and reads) of `config.tableName`. */
export function createLedger(config: Pick<SenderConfig, 'tableName'>, client: DynamoDBClient = createLedgerTableClient()): DynamoDbLedger {
  return new DynamoDbLedger(client, config.tableName);
}

/**
 * What the sender and the reclaimer use of the ledger: claims and outcomes, and the pending index. Not the
 * status writes or the support reads (the status Lambda's and the CLI's), whose code a sender bundle need not carry.
 */
export function createSendingLedger(config: Pick<SenderConfig, 'tableName'>, client: DynamoDBClient = createLedgerTableClient()): SendLedger & StalePendingSource {
  const table = new LedgerTableClient(client, config.tableName);
  return sendingLedger(new DynamoDbSendLedger(table), new DynamoDbStalePending(table));
}

/** One object for the two ports a delivering Lambda uses: claims and outcomes (`send`), and the pending index. */
export function sendingLedger(send: SendLedger, pending: StalePendingSource): SendLedger & StalePendingSource {
  return {
    claim: (row, nowMs) => send.claim(row, nowMs),
    takeOver: (key, fields) => send.takeOver(key, fields),
    complete: (claim, terminal, nowMs, expiresAt) => send.complete(claim, terminal, nowMs, expiresAt),
    release: (claim, release, nowMs) => send.release(claim, release, nowMs),
    releaseUnconfirmed: (attempt, release, nowMs) => send.releaseUnconfirmed(attempt, release, nowMs),
    get: (key) => send.get(key),
    listStalePending: (shard, claimedBefore, limit, cursor) => pending.listStalePending(shard, claimedBefore, limit, cursor),
  };
}

/** The limit counters, in the ledger table (see dynamodb-limit-store.ts); its writes are safe to retry too. */
export function createLimitStore(config: Pick<SenderConfig, 'tableName'>, client: DynamoDBClient = createLedgerTableClient()): DynamoDbLimitStore {
  return new DynamoDbLimitStore(client, config.tableName);
}

/** Recipients' consent records, in the ledger table too (see dynamodb-consent-store.ts); every write is conditional on its change time. */
export function createConsentStore(config: Pick<SenderConfig, 'tableName'>, client: DynamoDBClient = createLedgerTableClient()): DynamoDbConsentStore {
  return new DynamoDbConsentStore(client, config.tableName);
}
