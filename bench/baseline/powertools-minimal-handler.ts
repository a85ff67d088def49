/**
 * The cold-start baseline: a minimal Lambda that does the sender's job with Powertools idempotency,
 * set up as the Powertools docs show for SQS (BatchProcessor + processPartialResponse around a
 * `makeIdempotent` function, DynamoDBPersistenceLayer, the Lambda context registered each invocation).
 * It sends e-mail through SES v2 and SMS through SNS, one idempotent call per recipient and channel,
 * keyed on the same four fields as this sender. Nothing more: no schema, no templates, no logger, no
 * metrics, no dead-letter queue, no pacing. `npm run bench` bundles it exactly as the stack bundles the
 * notifier's functions and times its cold import beside theirs (`bench/bundle-size.ts`).
 *
 * Environment: IDEMPOTENCY_TABLE_NAME, EMAIL_FROM.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

/** The slice of a notification event this handler reads (unvalidated: a bad record fails and is retried). */
interface MinimalEvent {
  readonly eventId: string;
  readonly templateId: string;
  readonly data?: Record<string, unknown>;
  readonly recipients: ReadonlyArray<{
    readonly recipientId: string;
    readonly email?: string;
    readonly phone?: string;
    readonly channels: readonly string[];
  }>;
}

/** One message: the idempotency key fields first, then what the provider needs. */
interface MinimalMessage {
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: string;
  readonly templateId: string;
  readonly to: string;
  readonly text: string;
}

const ses = new SESv2Client({});
const sns = new SNSClient({});
const processor = new BatchProcessor(EventType.SQS);
const persistenceStore = new DynamoDBPersistenceLayer({ tableName: process.env.IDEMPOTENCY_TABLE_NAME ?? 'idempotency' });
const config = new IdempotencyConfig({ eventKeyJmesPath: '[eventId, recipientId, channel, templateId]' });

const sendOnce = makeIdempotent(
  async (message: MinimalMessage): Promise<{ messageId: string | undefined }> => {
    if (message.channel === 'email') {
      const sent = await ses.send(
        new SendEmailCommand({
          FromEmailAddress: process.env.EMAIL_FROM,
          Destination: { ToAddresses: [message.to] },
          Content: { Simple: { Subject: { Data: message.templateId }, Body: { Text: { Data: message.text } } } },
        }),
      );
      return { messageId: sent.MessageId };
    }
    const sent = await sns.send(new PublishCommand({ PhoneNumber: message.to, Message: message.text }));
    return { messageId: sent.MessageId };
  },
  { persistenceStore, config },
);

async function recordHandler(record: SQSRecord): Promise<void> {
  const event = JSON.parse(record.body) as MinimalEvent;
  const text = JSON.stringify(event.data ?? {});
  const sends: Promise<unknown>[] = [];
  for (const recipient of event.recipients) {
    for (const channel of recipient.channels) {
      const to = channel === 'email' ? recipient.email : channel === 'sms' ? recipient.phone : undefined;
      if (!to) continue;
      sends.push(sendOnce({ eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId, to, text }));
    }
  }
  await Promise.all(sends);
}

export const handler = async (event: SQSEvent, context: Context) => {
  config.registerLambdaContext(context);
  return processPartialResponse(event, recordHandler, processor, { context });
};
