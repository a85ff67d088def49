import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbLedger } from '../adapters/dynamodb-ledger';
import { ledgerClientConfig } from '../adapters/ledger-client-config';
import type { LambdaObservability } from '../adapters/lambda-observability';
import { OutboxProvider } from '../adapters/outbox-provider';
import { createSendClients } from '../adapters/send-clients';
import { SesEmailProvider } from '../adapters/ses-email-provider';
import { SnsProvider } from '../adapters/sns-provider';
import { SqsDeadLetters } from '../adapters/sqs-dead-letters';
import { systemClock } from '../core/clock';
import type { DeadLetterSink } from '../core/dead-letter-sink';
import type { DeliveryProviders } from '../core/delivery-provider';
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

export function createProviders(config: Pick<SenderConfig, 'delivery' | 'sendTimeoutMs'>): DeliveryProviders {
  const delivery = config.delivery;
  if (delivery.mode === 'outbox') {
    const outbox = new OutboxProvider(delivery.outboxFile);
    return { email: outbox, sms: outbox, push: outbox };
  }
  const clients = createSendClients(config.sendTimeoutMs);
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

export function createDeadLetters(config: Pick<SenderConfig, 'deadLetterQueueUrl'>): DeadLetterSink | undefined {
  return config.deadLetterQueueUrl ? new SqsDeadLetters(new SQSClient(ledgerClientConfig()), config.deadLetterQueueUrl) : undefined;
}

/**
 * Everything a delivery needs in Lambda, from validated configuration: the sender and the
 * reclaimer run the same delivery code over the same ports.
 */
export function createLambdaDeliveryContext(config: SenderConfig, observability: LambdaObservability) {
  return {
    ledger: createLedger(config),
    providers: createProviders(config),
    ...observability,
    clock: systemClock,
    newOwnerToken: randomUUID,
    timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
    sendTimeoutMs: config.sendTimeoutMs,
    messageClasses: config.messageClasses,
  } satisfies DeliveryContext & { messageClasses: SenderConfig['messageClasses'] };
}
