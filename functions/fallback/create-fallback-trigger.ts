import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import type { Clock } from '../core/clock';
import { keyPrefix } from '../core/event/idempotency-key';
import { fallbackRequestBody } from '../core/fallback/fallback-request';
import type { FallbackQueue } from '../core/fallback/fallback-queue';
import type { LedgerRow } from '../core/ledger/ledger-record';
import type { LogPort } from '../core/observability/log-port';
import { METRIC } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import type { MessageClassRegistry } from '../core/policy/message-class';
import { actionOfRecord } from './fallback-of-record';

/** Everything the trigger needs, injected. */
export interface FallbackTriggerDependencies extends ObservabilityHooks {
  readonly queue: FallbackQueue;
  /** Reads a fallback's row (strongly consistent), to learn whether it went out before its primary proved delivered. */
  readonly ledger: { get(key: string): Promise<LedgerRow | undefined> };
  readonly messageClasses: MessageClassRegistry;
  /** @default none: every class in the urgent lane */
  readonly bulkClasses?: readonly string[];
  readonly clock: Clock;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
}

export type FallbackTrigger = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/**
 * The fallback trigger: the ledger's stream (filtered by lib/fallback-stream-filter.ts to rows naming a next
 * channel) in, a request per primary that certainly did not arrive (or whose class's window must be checked) on the
 * sender's queue of its lane out. Because the trigger is the primary's own write, no crash between that write and a
 * second call can lose a fallback: a record whose request the queue did not take goes back to the event source
 * mapping (its sequence number, the checkpoint), and is read again with every later one; a request put twice is
 * harmless, the fallback's claim makes it one message.
 */
export function createFallbackTrigger(deps: FallbackTriggerDependencies): FallbackTrigger {
  const base = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const records = event.Records;
    for (const [index, record] of records.entries()) {
      try {
        const action = actionOfRecord(record, { messageClasses: deps.messageClasses, bulkClasses: deps.bulkClasses ?? [], nowMs: deps.clock() });
        if (action.kind === 'request') {
          await deps.queue.send({ lane: action.lane, body: fallbackRequestBody(action.primary.key), delaySeconds: action.delaySeconds });
          deps.metrics.count(METRIC.FallbackRequested, { channel: action.primary.channel, messageClass: action.primary.messageClass });
          deps.log.info('Fallback requested', { key: keyPrefix(action.primary.key), state: action.primary.state, delaySeconds: action.delaySeconds });
        } else if (action.kind === 'delivered') {
          const fallback = await deps.ledger.get(action.fallbackKey);
          // SENT or UNKNOWN (or still being sent): the recipient may have it twice, on two channels.
          if (fallback !== undefined && fallback.state !== 'FAILED' && fallback.state !== 'SUPPRESSED') {
            deps.metrics.count(METRIC.FallbackAfterDelivered, { channel: action.primary.channel, messageClass: action.primary.messageClass });
            deps.log.warn('Primary delivered after its fallback went out', { key: keyPrefix(action.primary.key), fallback: keyPrefix(action.fallbackKey), fallbackState: fallback.state });
          }
        }
      } catch (error) {
        const sequenceNumber = record.dynamodb?.SequenceNumber;
        deps.log.warn('Fallback record not handled; handed back to the event source mapping', {
          eventID: record.eventID,
          reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
        if (!sequenceNumber) throw new Error(`Stream record ${index} has no sequence number; the whole batch is retried`);
        deps.metrics.count(METRIC.FallbackRecordRetried, {}, records.length - index);
        return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
      }
    }
    return { batchItemFailures: [] };
  };
  return instrumentHandler(base, deps);
}
