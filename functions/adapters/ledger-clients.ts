import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SenderConfig } from '../core/sender-config';
import type { SendLedger } from '../core/send-ledger';
import type { StalePendingSource } from '../core/stale-pending';
import { DynamoDbLedger } from './dynamodb-ledger';
import { DynamoDbSendLedger } from './dynamodb-send-ledger';
import { DynamoDbStalePending } from './dynamodb-stale-pending';
import { LedgerTableClient } from './ledger-table-client';
import { DynamoDbConsentStore } from './dynamodb-consent-store';
import { DynamoDbLimitStore } from './dynamodb-limit-store';
import { ledgerClientConfig } from './ledger-client-config';

// The ledger table's two adapters, built from validated configuration. Endpoints come from the SDK's own
// standard variables (AWS_ENDPOINT_URL_DYNAMODB, or AWS_ENDPOINT_URL).

/** The send ledger (and its pending index, status and reads) of `config.tableName`. */
export function createLedger(config: Pick<SenderConfig, 'tableName'>): DynamoDbLedger {
  // Every ledger write recognises its own earlier success (owner token), so SDK retries are safe here.
  return new DynamoDbLedger(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

/**
 * What the sender and the reclaimer use of the ledger: claims and outcomes, and the pending index. Not the
 * status writes or the support reads (the status Lambda's and the CLI's), whose code a sender bundle need not carry.
 */
export function createSendingLedger(config: Pick<SenderConfig, 'tableName'>): SendLedger & StalePendingSource {
  const table = new LedgerTableClient(new DynamoDBClient(ledgerClientConfig()), config.tableName);
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
export function createLimitStore(config: Pick<SenderConfig, 'tableName'>): DynamoDbLimitStore {
  return new DynamoDbLimitStore(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

/** Recipients' consent records, in the ledger table too (see dynamodb-consent-store.ts); every write is conditional on its change time. */
export function createConsentStore(config: Pick<SenderConfig, 'tableName'>): DynamoDbConsentStore {
  return new DynamoDbConsentStore(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}
