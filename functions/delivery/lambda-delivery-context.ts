import { randomUUID } from 'node:crypto';
import type { LambdaObservability } from '../adapters/lambda-observability';
import { createConsentStore, createLedgerTableClient, createLimitStore, createSendingLedger } from '../adapters/ledger-clients';
import { systemClock } from '../core/clock';
import type { DeliveryProviders } from '../core/provider/delivery-provider';
import { throttleRetryPausesMs } from '../core/policy/send-lanes';
import type { SendRateGovernor } from '../core/policy/send-rate-governor';
import type { SenderConfig } from '../core/sender-config';
import type { DeliveryContext } from './delivery-context';
import { shippedSmsCountries } from './shipped-sms-countries';

/**
 * How a Lambda sends: its providers and its share of the account's send rate. The governor is a
 * required key (undefined only when no channel is paced), so a Lambda cannot leave it out unnoticed.
 */
export interface SendingEdge {
  readonly providers: DeliveryProviders;
  readonly governor: Pick<SendRateGovernor, 'acquire' | 'throttled'> | undefined;
}

/**
 * What a sender's lane (`SEND_LANE`) changes about its deliveries: the urgent lane sends a throttled message
 * again in place. Every sender and reclaimer built from a configuration takes it from here, in Lambda and locally.
 */
export function laneDelivery(config: Pick<SenderConfig, 'lane'>): Pick<DeliveryContext, 'throttleRetryPausesMs'> {
  return { throttleRetryPausesMs: throttleRetryPausesMs(config.lane) };
}

/**
 * Everything a delivery needs in Lambda, from validated configuration and the sending edge: the sender
 * and the reclaimer build their context with this one function and run the same delivery code over the
 * same ports. The AWS edges' endpoints come from the SDK's own standard variables
 * (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_SESV2, AWS_ENDPOINT_URL_SNS, or
 * AWS_ENDPOINT_URL).
 */
export function createLambdaDeliveryContext(config: SenderConfig, observability: LambdaObservability, sending: SendingEdge) {
  const table = createLedgerTableClient();
  return {
    ledger: createSendingLedger(config, table),
    limitStore: createLimitStore(config, table),
    consent: createConsentStore(config, table),
    topicPrefix: config.topicPrefix,
    defaultTimeZone: config.defaultTimeZone,
    destinations: { ...config.destinations, sms: shippedSmsCountries() },
    providers: sending.providers,
    ...(sending.governor ? { governor: sending.governor } : {}),
    ...laneDelivery(config),
    ...observability,
    clock: systemClock,
    realTime: systemClock,
    newOwnerToken: randomUUID,
    timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
    sendTimeoutMs: config.sendTimeoutMs,
    pendingIndexShards: config.pendingIndexShards,
    messageClasses: config.messageClasses,
  } satisfies DeliveryContext & { messageClasses: SenderConfig['messageClasses'] };
}
