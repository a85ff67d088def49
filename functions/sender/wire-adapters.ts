import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { DynamoDbLedger } from '../adapters/dynamodb-ledger';
import { ledgerClientConfig } from '../adapters/ledger-client-config';
import type { LambdaObservability } from '../adapters/lambda-observability';
import { OutboxProvider } from '../adapters/outbox-provider';
import { createSendClients, type SendClients } from '../adapters/send-clients';
import { readSesAccount } from '../adapters/ses-account';
import { SesEmailProvider } from '../adapters/ses-email-provider';
import { SnsProvider } from '../adapters/sns-provider';
import { sqsOnDemand } from '../adapters/sqs-on-demand';
import { systemClock } from '../core/clock';
import type { DeadLetterSink } from '../core/dead-letter-sink';
import type { DeliveryProviders } from '../core/delivery-provider';
import type { Channel } from '../core/idempotency-key';
import type { LogPort } from '../core/log-port';
import type { RecordDeferral } from '../core/record-deferral';
import { ratePerProcess, SendRateGovernor, type ChannelRates } from '../core/send-rate-governor';
import type { SenderConfig } from '../core/sender-config';
import type { DeliveryContext } from './deliver-message';

/**
 * The AWS edges, built from validated configuration. Endpoints come from the SDK's own
 * standard variables (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_SESV2,
 * AWS_ENDPOINT_URL_SNS, or AWS_ENDPOINT_URL).
 */
export function createLedger(config: Pick<SenderConfig, 'tableName'>): DynamoDbLedger {
  // Every ledger write recognises its own earlier success (owner token), so SDK retries are safe here.
  return new DynamoDbLedger(new DynamoDBClient(ledgerClientConfig()), config.tableName);
}

export function createProviders(
  config: Pick<SenderConfig, 'delivery' | 'sendTimeoutMs'>,
  clients: SendClients = createSendClients(config.sendTimeoutMs),
): DeliveryProviders {
  const delivery = config.delivery;
  if (delivery.mode === 'outbox') {
    const outbox = new OutboxProvider(delivery.outboxFile);
    return { email: outbox, sms: outbox, push: outbox };
  }
  const sns = new SnsProvider(clients.sns, {
    smsSenderId: delivery.smsSenderId,
    smsOriginationNumber: delivery.smsOriginationNumber,
  });
  return {
    email: new SesEmailProvider(clients.ses, {
      fromAddress: delivery.emailFrom,
      configurationSetName: delivery.sesConfigurationSet,
    }),
    sms: sns,
    push: sns,
  };
}

/** SQS of this process, loaded when a record first needs it (see sqs-on-demand.ts). */
let sqs: ReturnType<typeof sqsOnDemand> | undefined;

export function createDeadLetters(config: Pick<SenderConfig, 'deadLetterQueueUrl'>): DeadLetterSink | undefined {
  return config.deadLetterQueueUrl ? (sqs ??= sqsOnDemand()).deadLetters(config.deadLetterQueueUrl) : undefined;
}

/** The SDK clients that send, in `aws` delivery mode. */
export function createLambdaSendClients(config: Pick<SenderConfig, 'delivery' | 'sendTimeoutMs'>): SendClients | undefined {
  return config.delivery.mode === 'aws' ? createSendClients(config.sendTimeoutMs) : undefined;
}

/** Backs paced records off on the queue they came from, when the queue is known. */
export function createRecordDeferral(config: Pick<SenderConfig, 'sourceQueueUrl'>): RecordDeferral | undefined {
  return config.sourceQueueUrl ? (sqs ??= sqsOnDemand()).deferral(config.sourceQueueUrl) : undefined;
}

/**
 * The send-rate governor of this process, from the configured account-wide rates; the e-mail rate,
 * when not configured, is SES's own `MaxSendRate`. Logs the SES account's state once, at cold start:
 * a sandboxed or paused account explains every refusal that follows.
 */
export async function createSendRateGovernor(
  config: Pick<SenderConfig, 'delivery' | 'sendRates' | 'sendRateShares'>,
  ses: SESv2Client | undefined,
  log: LogPort,
): Promise<SendRateGovernor | undefined> {
  const rates: Partial<Record<Channel, number>> = { ...config.sendRates };
  if (config.delivery.mode === 'aws' && ses) {
    try {
      const account = await readSesAccount(ses);
      const logAccount = account.sendingEnabled === false ? log.error : log.info;
      logAccount('SES account at cold start', { ...account, configuredEmailRate: config.sendRates.email ?? null });
      if (rates.email === undefined && account.maxSendRate) rates.email = account.maxSendRate;
    } catch (error) {
      log.warn('Could not read the SES account (ses:GetAccount); e-mail is paced only if SEND_RATE_EMAIL_PER_SECOND is set', {
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
    }
  }
  if (Object.keys(rates).length > 0) {
    log.info('Send rates of this process', { accountRates: rates, shares: config.sendRateShares, perProcess: ratePerProcess(rates, config.sendRateShares) });
  }
  return governorFor(rates, config.sendRateShares);
}

/** A governor at this process's share of the account rates, or none when no channel is paced. */
export function governorFor(accountRates: ChannelRates, shares: number): SendRateGovernor | undefined {
  return Object.keys(accountRates).length > 0 ? new SendRateGovernor(ratePerProcess(accountRates, shares)) : undefined;
}

/**
 * Everything a delivery needs in Lambda, from validated configuration: the sender and the
 * reclaimer run the same delivery code over the same ports.
 */
export function createLambdaDeliveryContext(
  config: SenderConfig,
  observability: LambdaObservability,
  sendClients: SendClients | undefined = createLambdaSendClients(config),
) {
  return {
    ledger: createLedger(config),
    providers: createProviders(config, sendClients),
    ...observability,
    clock: systemClock,
    newOwnerToken: randomUUID,
    timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
    sendTimeoutMs: config.sendTimeoutMs,
    messageClasses: config.messageClasses,
  } satisfies DeliveryContext & { messageClasses: SenderConfig['messageClasses'] };
}
