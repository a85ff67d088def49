import { randomUUID } from 'node:crypto';
import type { LambdaObservability } from '../adapters/lambda-observability';
import { createLedger, createLimitStore } from '../adapters/ledger-clients';
import { systemClock } from '../core/clock';
import type { DeliveryProviders } from '../core/delivery-provider';
import type { SenderConfig } from '../core/sender-config';
import type { DeliveryContext } from './delivery-context';
import { shippedSmsCountries } from './shipped-sms-countries';

/**
 * Everything a delivery needs in Lambda, from validated configuration and the providers: the sender
 * and the reclaimer run the same delivery code over the same ports. The AWS edges' endpoints come from
 * the SDK's own standard variables (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS,
 * AWS_ENDPOINT_URL_SESV2, AWS_ENDPOINT_URL_SNS, or AWS_ENDPOINT_URL).
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
