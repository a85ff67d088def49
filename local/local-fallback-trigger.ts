import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { DynamoDbSendLedger } from '../functions/adapters/dynamodb-send-ledger';
import { createLedgerTableClient } from '../functions/adapters/ledger-clients';
import { LedgerTableClient } from '../functions/adapters/ledger-table-client';
import { newSqsClient } from '../functions/adapters/sqs-client';
import { SqsFallbackQueue } from '../functions/adapters/sqs-fallback-queue';
import type { Clock } from '../functions/core/clock';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import { buildMessageClassRegistry, DEFAULT_FALLBACK_POLICY } from '../functions/core/policy/message-class';
import { ENV } from '../functions/core/sender-config';
import { createFallbackTrigger, type FallbackTrigger } from '../functions/fallback/create-fallback-trigger';
import { FALLBACK_ENV, loadFallbackConfig } from '../functions/fallback/fallback-config';
import { FALLBACK_STREAM_FILTERS } from '../lib/fallback-stream-filter';
import { LEDGER_STREAM_BATCH_SIZE, LEDGER_STREAM_MAX_RECORD_AGE, LEDGER_STREAM_RETRY_ATTEMPTS } from '../lib/ledger-stream-consumer';
import { asFunction } from './aws/calling-function';
import type { LocalDynamoStream } from './aws/local-dynamo-stream';
import { attachStreamConsumer, type AttachedStreamConsumer, type StreamInvocationResult } from './aws/local-stream-consumer';
import { lambdaContext } from './lambda-event-source';

/** The local function name the trigger's invocations run as (test/iam/ holds its calls against its role). */
export const FALLBACK_FUNCTION_NAME = 'fallback';
/** The trigger's function timeout locally (the stack gives it the functions' timeout). */
const TRIGGER_TIMEOUT_MS = 30_000;

export interface LocalFallbackTriggerOptions {
  /** The local stream over the ledger table (the run's writers write through it). */
  readonly stream: LocalDynamoStream;
  readonly tableName: string;
  /** The sender's queue URL of each lane the stack runs (the first: urgent, or the single queue). */
  readonly lanes: readonly { readonly name: string; readonly queueUrl: string }[];
  /** The classes as the urgent lane's sender reads them (`MESSAGE_CLASSES`), as synth hands them to the trigger. @default the built-in classes */
  readonly messageClassesJson?: string;
  /** The bulk lane's classes. @default none */
  readonly bulkClasses?: readonly string[];
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** @default Date.now */
  readonly clock?: Clock;
  /** Wraps the trigger (a test's deliberate defect). @default the trigger as is */
  readonly wrapTrigger?: (trigger: FallbackTrigger) => FallbackTrigger;
  /** Called when an invocation ends, whichever way. @default nothing */
  readonly onInvocationEnd?: (result: StreamInvocationResult) => void;
}

/** The fallback trigger attached to a local run's stream. */
export interface LocalFallbackTrigger {
  readonly consumer: AttachedStreamConsumer;
  /** The variables the stack writes for the trigger, with the local queues' URLs. */
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * The channel fallback trigger of a local run, as the stack deploys it (lib/notifier-fallback.ts): its variables
 * validated at the first invocation as at a cold start (functions/fallback/fallback-config.ts), the real trigger
 * with the real SQS and DynamoDB clients (the SDK variables of the run point them at the local services), attached
 * to the local stream as its own event source mapping with the stack's filter, batch size, retries and record age.
 * Every invocation runs as the function `fallback`, so test/iam/ holds its calls against the trigger's role.
 */
export function attachLocalFallbackTrigger(options: LocalFallbackTriggerOptions): LocalFallbackTrigger {
  const urgent = options.lanes.find((lane) => lane.name !== 'bulk');
  if (!urgent) throw new Error('attachLocalFallbackTrigger: no urgent lane (or single queue) to send requests to');
  // As synth: the bulk lane's queue only when one of its classes falls back (lib/notifier-fallback.ts).
  const classes = buildMessageClassRegistry(options.messageClassesJson);
  const bulkFallsBack = (options.bulkClasses ?? []).some((name) => (classes.get(name)?.fallback ?? DEFAULT_FALLBACK_POLICY).enabled);
  const bulk = bulkFallsBack ? options.lanes.find((lane) => lane.name === 'bulk') : undefined;
  const environment: Record<string, string> = {
    [ENV.tableName]: options.tableName,
    [FALLBACK_ENV.urgentQueueUrl]: urgent.queueUrl,
    ...(bulk ? { [FALLBACK_ENV.bulkQueueUrl]: bulk.queueUrl } : {}),
    ...(options.bulkClasses?.length ? { [FALLBACK_ENV.bulkClasses]: options.bulkClasses.join(',') } : {}),
    ...(options.messageClassesJson ? { [ENV.messageClasses]: options.messageClassesJson } : {}),
  };
  // Built at the first invocation, as a cold start: the run has set its SDK variables by then.
  let trigger: FallbackTrigger | undefined;
  const coldStart = (): FallbackTrigger => {
    const config = loadFallbackConfig(environment);
    const built = createFallbackTrigger({
      queue: new SqsFallbackQueue(newSqsClient(), config.queueUrls),
      ledger: new DynamoDbSendLedger(new LedgerTableClient(createLedgerTableClient(), config.tableName)),
      messageClasses: config.messageClasses,
      bulkClasses: config.bulkClasses,
      clock: options.clock ?? Date.now,
      metrics: options.metrics,
      log: options.log,
    });
    return options.wrapTrigger ? options.wrapTrigger(built) : built;
  };
  const consumer = attachStreamConsumer(options.stream, {
    filters: FALLBACK_STREAM_FILTERS,
    batchSize: LEDGER_STREAM_BATCH_SIZE,
    retryAttempts: LEDGER_STREAM_RETRY_ATTEMPTS,
    maxRecordAgeMs: LEDGER_STREAM_MAX_RECORD_AGE.toMilliseconds(),
    bisectBatchOnError: true,
    handler: asFunction(FALLBACK_FUNCTION_NAME, (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
      trigger ??= coldStart();
      return trigger(event, lambdaContext(Date.now() + TRIGGER_TIMEOUT_MS));
    }),
    ...(options.onInvocationEnd ? { onInvocationEnd: options.onInvocationEnd } : {}),
  });
  return { consumer, environment };
}
