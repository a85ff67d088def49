import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import type { LogPort } from '../functions/core/observability/log-port';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import { METRIC } from '../functions/core/observability/metric-names';
import type { OutcomePublisher } from '../functions/outcomes/create-outcome-publisher';
import { startLocalDynamoStream, type LocalDynamoStream } from './aws/local-dynamo-stream';
import { DEFAULT_OUTCOME_FAULTS, OutcomeFaultPlan, type OutcomeFaultKind, type OutcomeFaultRates } from './aws/outcome-fault-plan';
import type { ResolvedLocalStack } from './local-stack';
import { startLocalOutcomeFeed } from './outcome-feed';
import { checkOutcomeFeed, type OutcomeFeedCheck } from './outcome-feed-check';

/** The wire run's outcome feed, judged: what was injected, what the publisher counted, the check. */
export interface WireOutcomeFeedReport extends OutcomeFeedCheck {
  readonly faults: OutcomeFaultRates;
  readonly injected: Readonly<Record<OutcomeFaultKind, number>>;
  readonly publisherInvocations: number;
  /** PutEvents entries the bus failed, as the publisher counted them (`OutcomeEntryFailed`). */
  readonly entriesFailed: number;
}

/** The outcome feed of a wire run, started in front of the local DynamoDB. */
export interface WireOutcomeFeed {
  /** Where the ledger's writers (through the fault proxy) must send their requests: the stream in front of DynamoDB. */
  readonly dynamoEndpoint: string;
  /** The ledger's stream (the fallback trigger is its second consumer). */
  readonly stream: LocalDynamoStream;
  /** AWS_ENDPOINT_URL_EVENTBRIDGE for the publisher. */
  readonly sdkEnvironment: Readonly<Record<string, string>>;
  /** Publishes what the stream still holds (every ledger write done), stops the publisher, and judges the feed. */
  finish(finalRows: Iterable<LedgerRow>): Promise<WireOutcomeFeedReport>;
  /** Stops the stream and the bus (after {@link finish}, or on a failed run). */
  stop(): Promise<void>;
}

/**
 * The stream and the real outcome publisher in a wire run: the publisher killed at seeded points (after the
 * ledger write and before PutEvents; after PutEvents and before the batch is acknowledged) and PutEvents failing
 * seeded entries ({@link OutcomeFaultPlan}); then every row that reached a producer-visible state must have
 * produced its event (local/outcome-feed-check.ts).
 */
export async function startWireOutcomeFeed(options: {
  readonly dynamoEndpoint: string;
  readonly stack: ResolvedLocalStack;
  readonly seed: number;
  readonly faults: OutcomeFaultRates;
  readonly log: LogPort;
  /** @default the publisher as is */
  readonly wrapPublisher?: (publisher: OutcomePublisher) => OutcomePublisher;
}): Promise<WireOutcomeFeed> {
  const stream = await startLocalDynamoStream({ target: options.dynamoEndpoint });
  const plan = new OutcomeFaultPlan(options.seed, options.faults);
  const metrics = new InMemoryMetrics();
  const feed = await startLocalOutcomeFeed({
    stream,
    metrics,
    log: options.log,
    metricsNamespace: options.stack.settings.metricsNamespace,
    ...(options.stack.settings.lanes.enabled ? { bulkClasses: options.stack.bulkClasses } : {}),
    bus: plan.busFaults(),
    ...(options.wrapPublisher ? { wrapPublisher: options.wrapPublisher } : {}),
  }).catch(async (error: unknown) => {
    await stream.stop();
    throw error;
  });
  let stopped: Promise<void> | undefined;
  const stopFeed = () => (stopped ??= feed.stop());
  return {
    dynamoEndpoint: stream.endpoint,
    stream,
    sdkEnvironment: feed.sdkEnvironment,
    async finish(finalRows) {
      await stopFeed();
      const check = checkOutcomeFeed({
        streamRecords: stream.all().map((stored) => stored.record),
        finalRows,
        events: feed.events(),
        killedAfterCalls: plan.killedAfterCalls,
        invocationOfCall: feed.invocationOfCall,
        invocationResults: feed.invocationResults(),
        parkedBatches: feed.parked().length,
      });
      return {
        ...check,
        faults: options.faults,
        injected: { ...plan.injected },
        publisherInvocations: feed.consumer.mapping.invocations().length,
        entriesFailed: metrics.get(METRIC.OutcomeEntryFailed),
      };
    },
    async stop() {
      await stopFeed().catch(() => undefined);
      await stream.stop();
    },
  };
}

export { DEFAULT_OUTCOME_FAULTS };
