import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbLedger } from '../adapters/dynamodb-ledger';
import { DynamoDbLimitStore } from '../adapters/dynamodb-limit-store';
import { ledgerClientConfig } from '../adapters/ledger-client-config';
import type { LambdaObservability } from '../adapters/lambda-observability';
import { systemClock } from '../core/clock';
import type { DeliveryProviders } from '../core/delivery-provider';
import type { SenderConfig } from '../core/sender-config';
import type { DeliveryContext } from './deliver-message';
import { shippedSmsCountries } from './shipped-sms-countries';

/**
 * The AWS edges, built from validated configuration. Endpoints come from the SDK's own
 * standard variables (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_SESV2,
 * AWS_ENDPOINT_URL_SNS, or AWS_ENDPOINT_URL).
 */
export function createLedger(config: Pick<SenderConfig, 'tableName'>): DynamoDbLedger {
  // Every ledger write recognises its own earlier success (owner token), so SDK retries are safe here.
  return new DynamoDbLedger(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

/** The limit counters, in the ledger table (see dynamodb-limit-store.ts); its writes are safe to retry too. */
export function createLimitStore(config: Pick<SenderConfig, 'tableName'>): DynamoDbLimitStore {
  return new DynamoDbLimitStore(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

/**
 * Everything a delivery needs in Lambda, from validated configuration and the providers: the sender
 * and the reclaimer run the same delivery code over the same ports.
 */
export function createLambdaDeliveryContext(config: SenderConfig, observability: LambdaObservability, providers: DeliveryProviders) {
  return {
    ledger: createLedger(config),
    limitStore: createLimitStore(config),
    destinations: { ...config.destinations, sms: shippedSmsCountries() },
    providers,
    ...observability,
    clock: systemClock,
    newOwnerToken: randomUUID,
    timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
    sendTimeoutMs: config.sendTimeoutMs,
    messageClasses: config.messageClasses,
  } satisfies DeliveryContext & { messageClasses: SenderConfig['messageClasses'] };
}
