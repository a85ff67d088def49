import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import type { OutcomeEventDetail } from '../functions/core/outcome/outcome-event';
import { wireOutcomePublisher } from '../functions/outcomes/outcome-publisher-wiring';
import type { OutcomePublisher } from '../functions/outcomes/create-outcome-publisher';
import { OUTCOME_BATCH_SIZE, OUTCOME_MAX_RECORD_AGE, OUTCOME_RETRY_ATTEMPTS, outcomePublisherEnvironment } from '../lib/notifier-outcomes';
import { OUTCOME_STREAM_FILTERS } from '../lib/outcome-stream-filter';
import type { ParkedBatch } from './aws/dynamo-stream-event-source';
import type { LocalDynamoStream } from './aws/local-dynamo-stream';
import { startLocalEventBridge, type BusEvent, type LocalEventBridge, type LocalEventBridgeOptions } from './aws/local-eventbridge';
import { attachStreamConsumer, type AttachedStreamConsumer, type StreamInvocationResult } from './aws/local-stream-consumer';
import { lambdaContext } from './lambda-event-source';

/** The bus a local run puts outcome events on (synth names its own, or takes the one the props give). */
export const LOCAL_OUTCOME_BUS = 'notifier-outcomes-local';
/** Where `npm start` writes the feed, one event a line, unless told otherwise. */
export const DEFAULT_OUTCOME_FEED_FILE = '.local-data/outcome-feed.jsonl';
/** The publisher's function timeout locally (the stack gives it the functions' timeout). */
const PUBLISHER_TIMEOUT_MS = 30_000;

/** One event of the feed as the bus took it: its EventBridge id, when it was taken, the detail producers read. */
export interface FeedEvent {
  readonly busEventId: string;
  /** Which PutEvents call of the run put it (0-based). */
  readonly call: number;
  readonly takenAt: string;
  readonly detail: OutcomeEventDetail;
}

export interface LocalOutcomeFeedOptions {
  /** The local stream over the ledger table. */
  readonly stream: LocalDynamoStream;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** The classes of the bulk lane (events then name their lane), as synth gives the publisher. @default no lane */
  readonly bulkClasses?: readonly string[];
  readonly metricsNamespace: string;
  /** Write each event as a JSON line here (the file is emptied first). @default none */
  readonly feedFile?: string;
  /** Faults the local EventBridge answers with (the wire run's plan). @default none */
  readonly bus?: Pick<LocalEventBridgeOptions, 'callFate' | 'entryFate'>;
  /** Wraps the publisher (a test's deliberate defect). @default the publisher as is */
  readonly wrapPublisher?: (publisher: OutcomePublisher) => OutcomePublisher;
  /** @default the publisher's own pauses (100, 500, 2000 ms) */
  readonly retryPausesMs?: readonly number[];
}

/** The outcome feed of a local run: the real publisher on the local stream, onto the local EventBridge. */
export interface LocalOutcomeFeed {
  readonly bus: LocalEventBridge;
  readonly consumer: AttachedStreamConsumer;
  /** The publisher's variables, as synth writes them with the local bus's name. */
  readonly environment: Readonly<Record<string, string>>;
  /** Set these in the run's SDK environment (AWS_ENDPOINT_URL_EVENTBRIDGE) before the first event is published. */
  readonly sdkEnvironment: Readonly<Record<string, string>>;
  /** Every event the bus took, oldest first. */
  events(): readonly FeedEvent[];
  /** How each invocation of the publisher ended. */
  invocationResults(): readonly StreamInvocationResult[];
  /** Per bus call (PutEvents), the publisher invocation that made it. */
  invocationOfCall(call: number): number | undefined;
  parked(): readonly ParkedBatch[];
  /** Stops polling after publishing everything the stream holds, then stops the bus. */
  stop(): Promise<void>;
}

/**
 * Starts the outcome feed locally as the stack deploys it (lib/notifier-outcomes.ts): the publisher wired from the
 * variables synth writes for it (functions/outcomes/outcome-publisher-wiring.ts, as its handler is), attached to
 * the local stream with the stack's filter patterns, batch size, retries and record age, putting events on a local
 * EventBridge that records them (and, in the wire run, fails entries or kills the publisher as its plan says).
 * The caller points the ledger's writers at the stream and sets {@link LocalOutcomeFeed.sdkEnvironment}.
 */
export async function startLocalOutcomeFeed(options: LocalOutcomeFeedOptions): Promise<LocalOutcomeFeed> {
  const feed: FeedEvent[] = [];
  const results: StreamInvocationResult[] = [];
  const callInvocation = new Map<number, number>();
  let running = -1;
  if (options.feedFile) {
    mkdirSync(dirname(options.feedFile), { recursive: true });
    writeFileSync(options.feedFile, '');
  }
  let consumer: AttachedStreamConsumer | undefined;
  const bus = await startLocalEventBridge({
    busNames: [LOCAL_OUTCOME_BUS],
    ...options.bus,
    onKill: () => consumer?.mapping.kill(),
    onTaken: (event: BusEvent) => {
      const line: FeedEvent = { busEventId: event.eventId, call: event.call, takenAt: new Date().toISOString(), detail: event.detail as OutcomeEventDetail };
      feed.push(line);
      if (!callInvocation.has(event.call)) callInvocation.set(event.call, running);
      if (options.feedFile) appendFileSync(options.feedFile, `${JSON.stringify(line)}\n`);
    },
  });
  const environment = outcomePublisherEnvironment({ eventBusName: LOCAL_OUTCOME_BUS, metricsNamespace: options.metricsNamespace, bulkClasses: options.bulkClasses });
  // Built at the first invocation, as a cold start: the run sets AWS_ENDPOINT_URL_EVENTBRIDGE before that.
  let publisher: OutcomePublisher | undefined;
  const publisherOf = () => {
    const built = wireOutcomePublisher(environment, { metrics: options.metrics, log: options.log, ...(options.retryPausesMs ? { retryPausesMs: options.retryPausesMs } : {}) });
    return options.wrapPublisher ? options.wrapPublisher(built) : built;
  };
  consumer = attachStreamConsumer(options.stream, {
    filters: OUTCOME_STREAM_FILTERS,
    batchSize: OUTCOME_BATCH_SIZE,
    retryAttempts: OUTCOME_RETRY_ATTEMPTS,
    maxRecordAgeMs: OUTCOME_MAX_RECORD_AGE.toMilliseconds(),
    bisectBatchOnError: true,
    handler: (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
      publisher ??= publisherOf();
      // The mapping counted this invocation before handing it the batch: the bus's calls from now on are its.
      running = (consumer?.mapping.invocations().length ?? 1) - 1;
      return publisher(event, lambdaContext(Date.now() + PUBLISHER_TIMEOUT_MS));
    },
    // A killed invocation's environment is gone with it; the next one reaches the bus again.
    afterKill: () => bus.revive(),
    onInvocationEnd: (result) => results.push(result),
  });
  const attached = consumer;
  return {
    bus,
    consumer: attached,
    environment,
    sdkEnvironment: { AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint },
    events: () => feed,
    invocationResults: () => results,
    invocationOfCall: (call) => callInvocation.get(call),
    parked: () => attached.mapping.parked(),
    async stop() {
      await attached.stop();
      await bus.stop();
    },
  };
}
