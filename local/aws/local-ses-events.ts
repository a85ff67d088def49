import { createConsentStore, createLedger } from '../../functions/adapters/ledger-clients';
import type { Clock } from '../../functions/core/clock';
import type { LogPort } from '../../functions/core/observability/log-port';
import type { MetricsRecorder } from '../../functions/core/observability/metrics-recorder';
import { createStatusHandler, type StatusHandler } from '../../functions/status/create-status-handler';
import { asFunction } from './calling-function';
import type { BatchHandler } from '../lambda-event-source';
import { startEventTopicQueue, type EventTopicQueue } from './event-topic-queue';
import type { LocalSqs } from './local-sqs';
import { queueIsEmpty } from './queue-inspection';
import { SqsEventSource } from './sqs-event-source';

/** SES events per status invocation, as the stack's event source takes them (lib/ses-event-queue.ts, SES_EVENTS_BATCH_SIZE). */
const SES_EVENTS_BATCH_SIZE = 10;
/** Receives before the dead-letter queue, as the stack's (lib/ses-event-queue.ts, SES_EVENTS_MAX_RECEIVE_COUNT). */
const SES_EVENTS_MAX_RECEIVE_COUNT = 10;

/**
 * SES's evidence as a local run has it, on the stack's path: the configuration sets' event destination is an SNS
 * topic, the topic delivers to a queue (raw delivery) with its dead-letter queue, and the real status handler takes
 * the queue in batches through a local SQS event source mapping (partial batch responses, redelivery after the
 * visibility timeout), writing to the ledger through AWS_ENDPOINT_URL_DYNAMODB. Hand {@link publish} to the local
 * SES as its `events`.
 */
export interface LocalSesEvents {
  readonly path: EventTopicQueue;
  readonly source: SqsEventSource;
  /** One SES event record, as the configuration set's event destination publishes it to the topic. */
  readonly publish: (event: Record<string, unknown>) => void;
  /** Events published to the topic so far, and those the topic refused (the local SNS failed). */
  readonly counts: { readonly published: number; readonly publishFailures: number };
  /** Lets the event source stop once every event published so far is recorded (or dead-lettered), then stops. */
  stop(): Promise<void>;
}

export interface LocalSesEventsOptions {
  readonly sqs: LocalSqs;
  readonly tableName: string;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly clock: Clock;
  /** Resolves when the local SES has handed every scheduled event over (LocalSes.settled); awaited before stopping. @default none */
  readonly settled?: () => Promise<void>;
  /** The event source's maximum concurrency. @default 2 (Lambda's minimum) */
  readonly maximumConcurrency?: number;
  /**
   * The queue's visibility timeout: a batch the status handler failed comes back after it. The stack's is six times
   * the status function's 30 s timeout; a local run scales it down so a failed batch is retried in seconds. @default 5
   */
  readonly visibilityTimeoutSeconds?: number;
  /** @default 'notifier-ses-events' */
  readonly name?: string;
  /** The status function's handler. @default the real one over the ledger `tableName` names (AWS_ENDPOINT_URL_DYNAMODB) */
  readonly statusHandler?: StatusHandler;
}

export async function startLocalSesEvents(options: LocalSesEventsOptions): Promise<LocalSesEvents> {
  const visibilityTimeoutSeconds = options.visibilityTimeoutSeconds ?? 5;
  const path = await startEventTopicQueue(options.sqs, options.name ?? 'notifier-ses-events', { maxReceiveCount: SES_EVENTS_MAX_RECEIVE_COUNT, visibilityTimeoutSeconds });
  const client = options.sqs.client();
  const inFlight = new Set<Promise<void>>();
  const counts = { published: 0, publishFailures: 0 };
  let status: StatusHandler | undefined = options.statusHandler;
  // Built at first use: the ledger's endpoint variable is set by the run after this starts.
  const statusHandler = () =>
    (status ??= createStatusHandler({
      store: createLedger({ tableName: options.tableName }),
      consent: createConsentStore({ tableName: options.tableName }),
      metrics: options.metrics,
      log: options.log,
      clock: options.clock,
    }));
  const handler: BatchHandler = async (event, context) => {
    const summary = await statusHandler()(event, context);
    return { batchItemFailures: [...(summary.batchItemFailures ?? [])] };
  };
  const source = new SqsEventSource({
    client,
    queueUrl: path.queue.queueUrl,
    queueArn: path.queue.queueArn,
    // The status function's invocations: its AWS requests are held against its role (test/iam/).
    createHandler: () => asFunction('status', handler),
    // Lambda wants the visibility timeout at least the function's: the scaled-down visibility scales the timeout too.
    functionTimeoutMs: visibilityTimeoutSeconds * 1000,
    batchSize: SES_EVENTS_BATCH_SIZE,
    maximumConcurrency: options.maximumConcurrency ?? 2,
  });
  let stopping = false;
  const running = source.run(async () => stopping && inFlight.size === 0 && (await queueIsEmpty(client, path.queue.queueUrl)));
  return {
    path,
    source,
    counts,
    publish(event) {
      const sent: Promise<void> = path.publish(event).then(
        () => {
          counts.published += 1;
          inFlight.delete(sent);
        },
        (error: unknown) => {
          counts.publishFailures += 1;
          inFlight.delete(sent);
          options.log.warn('SES event not published to the local events topic', { error: error instanceof Error ? error.message : String(error) });
        },
      );
      inFlight.add(sent);
    },
    async stop() {
      await options.settled?.();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      stopping = true;
      await running;
      path.stop();
      client.destroy();
    },
  };
}
