import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { SqsFallbackQueue } from '../../functions/adapters/sqs-fallback-queue';
import { idempotencyKey, type Channel } from '../../functions/core/event/idempotency-key';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { createFallbackTrigger } from '../../functions/fallback/create-fallback-trigger';
import { FALLBACK_STREAM_FILTERS } from '../../lib/fallback-stream-filter';
import { createDynamoStreamEventSource, type DynamoStreamEventSource } from '../../local/aws/dynamo-stream-event-source';
import { startLocalDynamoStream, type LocalDynamoStream } from '../../local/aws/local-dynamo-stream';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { StatusHarness } from '../status/status-harness';
import { ControlledClock } from '../support/controlled-clock';
import type { TestLedger } from '../support/ledger-server';
import { failedIds, type SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { startWireRig, type WireRig, type WireRigOptions, type WireSenderOptions } from './wire-harness';

/** The otp class with its window without evidence made short (1 s), so that SQS's real delay passes within a test. */
export const SHORT_OTP_CLASSES_JSON = JSON.stringify([{ name: 'otp', onAmbiguous: 'resend', fallback: { withoutEvidenceSeconds: 1 } }]);

/** The key of the message to `event`'s first recipient on `channel`. */
export const firstRecipientKey = (event: NotificationEvent, channel: Channel) =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel, templateId: event.templateId });

/**
 * Channel fallback on loopback, every hop through a real SDK client: the sender and the status handler write the
 * ledger through the local DynamoDB stream (dynalite has none), the local event source mapping hands the stream to
 * the real fallback trigger with the stack's filter patterns, the trigger puts its requests on the local SQS queue
 * (fauxqs) with the real SQS client, and `pump` hands that queue's visible messages to a sender, as the sender's own
 * event source mapping does. The providers count what they accepted, independently of the ledger.
 */
export interface FallbackRig {
  readonly wire: WireRig;
  readonly stream: LocalDynamoStream;
  readonly sqs: LocalSqs;
  readonly mapping: DynamoStreamEventSource;
  readonly clock: ControlledClock;
  /** The trigger's counts (`FallbackRequested`, `FallbackAfterDelivered`). */
  readonly triggerMetrics: InMemoryMetrics;
  readonly status: StatusHarness;
  sender(options?: WireSenderOptions): SenderHarness;
  /** Hands every stream record written so far to the trigger (retries included), as the mapping does. */
  drainStream(): Promise<void>;
  /** Receives the visible fallback requests and hands each to `senders` in turn, all at once; deletes the acknowledged ones. Answers how many were received. */
  pump(...senders: SenderHarness[]): Promise<number>;
  stop(): Promise<void>;
}

export async function startFallbackRig(db: TestLedger, options: WireRigOptions & { readonly messageClassesJson?: string } = {}): Promise<FallbackRig> {
  const clock = new ControlledClock();
  const stream = await startLocalDynamoStream({ target: db.endpoint, clock: clock.now });
  const wire = await startWireRig({ tableName: db.tableName, endpoint: stream.endpoint } as TestLedger, options);
  const sqs = await startLocalSqs();
  const client = sqs.client();
  const triggerMetrics = new InMemoryMetrics();
  const messageClasses = buildMessageClassRegistry(options.messageClassesJson);
  const trigger = createFallbackTrigger({
    queue: new SqsFallbackQueue(client, { urgent: sqs.queueUrl, bulk: sqs.queueUrl }),
    ledger: wire.ledger,
    messageClasses,
    clock: clock.now,
    metrics: triggerMetrics,
    log: silentLog,
  });
  const mapping = createDynamoStreamEventSource({ stream, filters: FALLBACK_STREAM_FILTERS, handler: (event) => trigger(event, {} as never), clock: clock.now });
  return {
    wire,
    stream,
    sqs,
    mapping,
    clock,
    triggerMetrics,
    status: new StatusHarness(wire.ledger, clock),
    sender: (senderOptions = {}) => wire.sender(clock, undefined, undefined, { ...senderOptions, ...(options.messageClassesJson ? { messageClassesJson: options.messageClassesJson } : {}) }),
    async drainStream() {
      await mapping.drain();
    },
    async pump(...senders) {
      const received = await client.send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      const messages = received.Messages ?? [];
      await Promise.all(
        messages.map(async (message, index) => {
          const sender = senders[index % senders.length]!;
          const answer = await sender.invoke(sqsRecord(message.Body ?? '', message.MessageId));
          if (!failedIds(answer).includes(message.MessageId ?? '')) await client.send(new DeleteMessageCommand({ QueueUrl: sqs.queueUrl, ReceiptHandle: message.ReceiptHandle }));
        }),
      );
      return messages.length;
    },
    async stop() {
      client.destroy();
      await wire.stop();
      await stream.stop();
      await sqs.stop();
    },
  };
}
