import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import { keyPrefix } from '../core/event/idempotency-key';
import type { LogPort } from '../core/observability/log-port';
import { METRIC } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import type { OutcomeBus } from '../core/outcome/outcome-bus';
import type { OutcomeEventOptions } from '../core/outcome/outcome-event';
import { outcomesOfBatch } from './outcomes-of-batch';
import { publishWithRetries } from './publish-with-retries';

/** Everything the publisher needs, injected. */
export interface OutcomePublisherDependencies extends ObservabilityHooks, OutcomeEventOptions {
  readonly bus: OutcomeBus;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /**
   * Pauses (ms) before each new try of the entries the bus did not take, within the invocation; after the last,
   * their records go back to the event source mapping. @default [100, 500, 2000]
   */
  readonly retryPausesMs?: readonly number[];
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The publisher's handler: a DynamoDB stream batch in, the partial batch response out. */
export type OutcomePublisher = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

export const DEFAULT_OUTCOME_RETRY_PAUSES_MS: readonly number[] = [100, 500, 2_000];

/**
 * Puts every producer-visible state change of a batch of ledger stream records on the bus, at least once.
 *
 * Entries the bus did not take are sent again after a pause, a bounded number of times. What is still not
 * on the bus then, and the first record that cannot be read, go back to the event source mapping as a partial
 * batch response: the sequence number of the earliest such record, because a DynamoDB stream is checkpointed
 * there and every later record is delivered again (Lambda's "Configuring partial batch response with DynamoDB
 * and Lambda": with several items, the lowest sequence number is the checkpoint). The events of records before
 * it are on the bus; those after it that were published are published again, with the same `outcomeId`.
 */
export function createOutcomePublisher(deps: OutcomePublisherDependencies): OutcomePublisher {
  const pauses = deps.retryPausesMs ?? DEFAULT_OUTCOME_RETRY_PAUSES_MS;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const base = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const records = event.Records;
    const batch = outcomesOfBatch(records, deps);
    if (batch.firstInvalid) {
      const record = records[batch.firstInvalid.recordIndex];
      deps.metrics.count(METRIC.OutcomeRecordInvalid);
      deps.log.error('Stream record is not a valid ledger row; handed back to the event source mapping', {
        eventID: record?.eventID,
        sequenceNumber: record?.dynamodb?.SequenceNumber,
        reason: batch.firstInvalid.reason,
      });
    }
    const unpublished = await publishWithRetries(batch.outcomes, { bus: deps.bus, metrics: deps.metrics, pauses, sleep });
    for (const outcome of unpublished) {
      deps.log.warn('Outcome event not taken by the bus; its record goes back to the event source mapping', {
        key: keyPrefix(outcome.detail.key),
        state: outcome.detail.state,
        outcomeId: outcome.detail.outcomeId,
      });
    }
    const firstFailed = Math.min(batch.firstInvalid?.recordIndex ?? Infinity, ...unpublished.map((o) => o.recordIndex));
    if (firstFailed === Infinity) return { batchItemFailures: [] };
    const sequenceNumber = records[firstFailed]?.dynamodb?.SequenceNumber;
    // Without its sequence number the record cannot be named: failing the whole batch retries it all.
    if (!sequenceNumber) throw new Error(`Stream record ${firstFailed} has no sequence number; the whole batch is retried`);
    deps.metrics.count(METRIC.OutcomeRecordRetried, {}, records.length - firstFailed);
    return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
  };
  return instrumentHandler(base, deps);
}
