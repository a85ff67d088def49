import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SenderConfig } from '../core/sender-config';
import { DynamoDbLedger } from './dynamodb-ledger';
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

/** The limit counters, in the ledger table (see dynamodb-limit-store.ts); its writes are safe to retry too. */
export function createLimitStore(config: Pick<SenderConfig, 'tableName'>): DynamoDbLimitStore {
  return new DynamoDbLimitStore(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

/** Recipients' consent records, in the ledger table too (see dynamodb-consent-store.ts); every write is conditional on its change time. */
export function createConsentStore(config: Pick<SenderConfig, 'tableName'>): DynamoDbConsentStore {
  return new DynamoDbConsentStore(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}
