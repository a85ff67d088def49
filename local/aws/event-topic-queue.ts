import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CreateTopicCommand, PublishCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import type { SQSEvent } from 'aws-lambda';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../local-dynamo';
import type { LocalQueuePair, LocalQueueRedrive, LocalSqs } from './local-sqs';
import { toSqsRecord } from './sqs-record';

/** What the status Lambda is to the path: it takes an SQS event and throws when it must see the batch again. */
export type StatusConsumer = (event: SQSEvent) => Promise<unknown>;

/**
 * A provider's events on the stack's own path, on the local SNS/SQS emulator (fauxqs): an SNS topic (the event
 * destination), subscribed by a queue with raw message delivery (so each body is the event record), the queue with
 * its dead-letter queue as the stack's (lib/event-topic-queue.ts builds the same on AWS, for SES and End User Messaging).
 */
export interface EventTopicQueue {
  readonly topicArn: string;
  readonly queue: LocalQueuePair;
  /** Publishes one event record to the topic, as the event destination does. */
  publish(event: object): Promise<void>;
  /**
   * Hands what the queue holds to the status consumer, batch by batch, until a receive finds nothing:
   * a batch it took is deleted, one it threw on stays for the visibility timeout (as Lambda's event source).
   * @returns the events handed over
   */
  drain(consumer: StatusConsumer): Promise<number>;
  stop(): void;
}

/**
 * Creates the topic, the queue pair and the raw-delivery subscription named `name` on the local emulator.
 * @param redrive the queue's own redrive settings @default the emulator's first queue's
 */
export async function startEventTopicQueue(sqs: LocalSqs, name: string, redrive?: Partial<LocalQueueRedrive>): Promise<EventTopicQueue> {
  const sns = new SNSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS });
  const client: SQSClient = sqs.client();
  const queue = await sqs.createQueuePair(name, redrive);
  const topicArn = (await sns.send(new CreateTopicCommand({ Name: name }))).TopicArn;
  if (!topicArn) throw new Error('local SNS answered CreateTopic without a TopicArn');
  await sns.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queue.queueArn, Attributes: { RawMessageDelivery: 'true' } }));
  return {
    topicArn,
    queue,
    async publish(event) {
      await sns.send(new PublishCommand({ TopicArn: topicArn, Message: JSON.stringify(event) }));
    },
    async drain(consumer) {
      let handed = 0;
      for (;;) {
        const answer = await client.send(new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }));
        const messages = answer.Messages ?? [];
        if (messages.length === 0) return handed;
        const records = messages.map((m) => toSqsRecord(m, queue.queueArn, LOCAL_REGION));
        try {
          await consumer({ Records: records });
        } catch {
          return handed;
        }
        handed += records.length;
        await client.send(new DeleteMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }));
      }
    },
    stop() {
      sns.destroy();
      client.destroy();
    },
  };
}
