import type { Context } from 'aws-lambda';
import pLimit from 'p-limit';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import type { Clock } from '../core/clock';
import type { ConsentStore } from '../core/policy/consent';
import type { DeliveryStatusStore, RecordStatusResult } from '../core/provider/delivery-status';
import { keyPrefix } from '../core/event/idempotency-key';
import type { LogPort } from '../core/observability/log-port';
import { METRIC, type MetricName } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import { decodeStatusInput, type StatusInputKind } from './decode-status-input';
import { applyConsentSignal } from './consent-signal';
import type { StatusEvent } from './status-event';

/** Everything the status handler needs, injected. */
export interface StatusDependencies extends ObservabilityHooks {
  readonly store: DeliveryStatusStore;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly clock: Clock;
  /**
   * Where what an event says about consent is recorded (an unsubscribe, an opted-out number): the sender
   * reads it before each bulk message. The Lambda always has one. @default none: consent is not recorded
   */
  readonly consent?: ConsentStore;
  /** Ledger writes in flight at once. @default 8 */
  readonly concurrency?: number;
}

/** What one invocation did, per event. */
export interface StatusRunSummary {
  readonly kind: StatusInputKind;
  readonly recorded: number;
  readonly superseded: number;
  readonly unmatched: number;
  readonly invalid: number;
  /**
   * For an SQS batch: the records whose ledger write failed, which come back (the event source reports batch item
   * failures). @default none: an invocation of another kind fails whole on a ledger error
   */
  readonly batchItemFailures?: readonly { readonly itemIdentifier: string }[];
}

/** The status Lambda's handler: SNS, EventBridge or CloudWatch Logs events in, a count of what happened out. */
export type StatusHandler = (event: unknown, context: Context) => Promise<StatusRunSummary>;

/**
 * Records delivery-status events on their ledger rows. Duplicates and out-of-order events are
 * answers (`superseded`), events for no row are counted (`unmatched`), malformed input is
 * counted and logged: none of these fail the invocation. A ledger error does (for an SQS batch, only its record
 * fails: a partial batch response), so the event comes again, which is safe because every write is conditional.
 */
export function createStatusHandler(deps: StatusDependencies): StatusHandler {
  const limit = pLimit(deps.concurrency ?? 8);

  /** Decodes and records one invocation (or one SQS record of it); a ledger error is thrown. */
  const recordAll = async (input: unknown): Promise<StatusRunSummary> => {
    const decoded = decodeStatusInput(input);
    for (const reason of decoded.invalid) {
      deps.metrics.count(METRIC.DeliveryStatusInvalid);
      deps.log.warn('Input is not a delivery-status event; ignored', { inputKind: decoded.kind, reason });
    }
    const results = await Promise.all(decoded.events.map((event) => limit(() => apply(event, deps))));
    const count = (r: RecordStatusResult) => results.filter((x) => x === r).length;
    return {
      kind: decoded.kind,
      recorded: count('recorded'),
      superseded: count('superseded'),
      unmatched: count('no-row'),
      invalid: decoded.invalid.length,
    };
  };

  const base = async (input: unknown): Promise<StatusRunSummary> => {
    const records = sqsRecordsOf(input);
    if (!records) return recordAll(input);
    // An SQS batch (SES and End User Messaging events through their queues): each record on its own, and only a record
    // whose ledger write failed comes back (a partial batch response), so one outage does not replay the whole batch.
    const summaries = await Promise.all(
      records.map(async (record): Promise<{ record: { readonly messageId: string }; summary?: StatusRunSummary }> => {
        try {
          return { record, summary: await recordAll({ Records: [record] }) };
        } catch (error) {
          deps.log.error('Delivery status not recorded; the record comes back after its visibility timeout', {
            messageId: record.messageId,
            error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
          });
          return { record };
        }
      }),
    );
    const done = summaries.flatMap(({ summary }) => (summary ? [summary] : []));
    const failed = summaries.flatMap(({ record, summary }) => (summary ? [] : [record.messageId]));
    if (failed.length === records.length) throw new Error(`Delivery status of none of ${records.length} SQS records recorded`);
    const sum = (field: 'recorded' | 'superseded' | 'unmatched' | 'invalid') => done.reduce((total, s) => total + s[field], 0);
    return {
      kind: 'sqs',
      recorded: sum('recorded'),
      superseded: sum('superseded'),
      unmatched: sum('unmatched'),
      invalid: sum('invalid'),
      batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })),
    };
  };
  return instrumentHandler(base, deps);
}

/** SES statuses that arrive after SES accepted the e-mail and hurt the account's reputation, by the metric counting them. */
const LATE_SES_STATUS: Readonly<Record<string, MetricName | undefined>> = {
  Bounce: METRIC.LateBounce,
  Complaint: METRIC.LateComplaint,
};

async function apply(event: StatusEvent, deps: StatusDependencies): Promise<RecordStatusResult> {
  const { ref, update, channel } = event;
  const key =
    ref.kind === 'key' ? ref.key : ref.kind === 'sms-message-id' ? await deps.store.keyForSmsMessageId(ref.providerMessageId) : undefined;
  const context = {
    status: update.status,
    source: update.source,
    eventAt: new Date(update.at).toISOString(),
    ...(ref.kind === 'key' ? {} : { providerMessageId: ref.providerMessageId }),
    ...(key ? { key: keyPrefix(key) } : {}),
  };
  if (event.finalityUnstated) {
    deps.metrics.count(METRIC.DeliveryStatusFinalityUnstated, { channel });
    deps.log.warn('End User Messaging event without a boolean isFinal: recorded as intermediate, never final', context);
  }
  const result = key ? await deps.store.recordDeliveryStatus(key, update, deps.clock()) : 'no-row';
  // A duplicate (superseded) applies again: every consent write is conditional on its own time, so it is a no-op
  // after its own success, and it completes one whose invocation failed between the two writes.
  if (key && result !== 'no-row' && event.consent) await applyConsentSignal(key, event.consent, update.at, deps);
  switch (result) {
    case 'recorded': {
      deps.metrics.count(METRIC.DeliveryStatusRecorded, { channel });
      // Counted once per event: a redelivered one is `superseded`, never recorded twice.
      const late = update.source === 'ses' ? LATE_SES_STATUS[update.status] : undefined;
      if (late) deps.metrics.count(late, { channel });
      deps.log.info('Delivery status recorded', context);
      break;
    }
    case 'superseded':
      deps.metrics.count(METRIC.DeliveryStatusSuperseded, { channel });
      deps.log.info('Delivery status already recorded or older than the row\'s; ignored', context);
      break;
    case 'no-row':
      deps.metrics.count(METRIC.DeliveryStatusUnmatched, { channel });
      deps.log.warn('Delivery status matches no ledger row; ignored', context);
      break;
  }
  return result;
}

/** An SQS event's records (each with a `messageId`), or undefined for any other input. */
function sqsRecordsOf(input: unknown): readonly { readonly messageId: string }[] | undefined {
  if (typeof input !== 'object' || input === null || !('Records' in input) || !Array.isArray(input.Records)) return undefined;
  const records: unknown[] = input.Records;
  const isSqs = (r: unknown): r is { messageId: string; eventSource: 'aws:sqs' } =>
    typeof r === 'object' && r !== null && (r as { eventSource?: unknown }).eventSource === 'aws:sqs' && typeof (r as { messageId?: unknown }).messageId === 'string';
  return records.length > 0 && records.every(isSqs) ? records : undefined;
}
