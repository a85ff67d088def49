import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import { LEDGER_MAX_ATTEMPTS, LEDGER_REQUEST_TIMEOUT_MS } from '../adapters/ledger-client-config';
import { systemClock } from '../core/clock';
import { RetryLaterError, type RecordBackoff } from '../core/errors';
import { METRIC } from '../core/observability/metric-names';
import type { RecordDeferral } from '../core/queue/record-deferral';
import { LONGEST_HOLD_FOR_ANY_SETTINGS } from '../core/queue/quiet-hours-hold';
import { backoffSeconds, DEFAULT_BACKOFF, type BackoffSettings } from '../core/queue/visibility-backoff';
import type { ReceiveInfo } from '../core/ledger/stale-claim-discovery';
import { processRecord, type RecordContext } from './process-record';
import { KeptLedgerWrites } from '../delivery/kept-ledger-writes';

/** Everything the sender handler needs, injected: real adapters in Lambda, fakes or local servers in tests. */
export interface SenderDependencies extends Omit<RecordContext, 'limit'>, ObservabilityHooks {
  /** Most deliveries in flight at once across a batch. */
  readonly maxConcurrentSends: number;
  /**
   * Backs off records whose messages wait on the providers' pace (throttled, rate-limited, quota
   * spent). @default none: such records come back after the queue's visibility timeout
   */
  readonly deferral?: RecordDeferral;
  /** Steps of that backoff. @default DEFAULT_BACKOFF */
  readonly backoff?: BackoffSettings;
  /** Jitter source of the backoff, in [0, 1). @default Math.random */
  readonly random?: () => number;
  /**
   * The longest a record held for quiet hours may be made invisible: SQS's 12 hours count from the receive, so
   * less the batching window, the function's time and a margin (`longestHoldSeconds`, quiet-hours-hold.ts).
   * @default LONGEST_HOLD_FOR_ANY_SETTINGS (the bound for Lambda's longest timeout and batching window)
   */
  readonly longestHoldSeconds?: number;
  /**
   * When the ledger failed on writes this invocation owes (see `keptWrites`), retry them until
   * the invocation's time runs out before returning, so that an outage shorter than that costs no
   * ambiguity even if this environment is never invoked again. @default false (they wait for the
   * environment's next invocation); the Lambda handler turns it on
   */
  readonly waitForLedgerBeforeReturning?: boolean;
}

/** Room for the claim and the outcome write, one request timeout each. */
const LEDGER_WRITES_ALLOWANCE_MS = 2 * LEDGER_REQUEST_TIMEOUT_MS;
/** The longest one ledger request can take: every SDK attempt timing out, plus the SDK's backoff between them. */
const LEDGER_REQUEST_ROUND_MS = LEDGER_MAX_ATTEMPTS * LEDGER_REQUEST_TIMEOUT_MS + 2_000;
/** Left for the batch response after the last retry of the kept writes. */
const RESPONSE_MARGIN_MS = 500;

export type SenderHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Builds the SQS handler: partial batch responses, records processed concurrently with
 * deliveries bounded by `maxConcurrentSends`. A record is acknowledged only when every
 * one of its messages is terminal or it was dead-lettered with its reason.
 */
export function createSenderHandler(deps: SenderDependencies): SenderHandler {
  const limit = pLimit(deps.maxConcurrentSends);
  // One per execution environment: outlives the invocation whose ledger requests failed.
  const keptWrites = deps.keptWrites ?? new KeptLedgerWrites();
  const keptWritesContext = { ...deps, concurrency: deps.maxConcurrentSends };
  // Room for the send itself plus the claim and outcome writes.
  const timeNeededMs = deps.sendTimeoutMs + LEDGER_WRITES_ALLOWANCE_MS;
  const realTime = deps.realTime ?? systemClock;

  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  const longestHold = deps.longestHoldSeconds ?? LONGEST_HOLD_FOR_ANY_SETTINGS;

  /**
   * Makes a paced record invisible for its backoff; if that fails it still comes back, only sooner. `reason` is the
   * record's (which messages wait, and why), logged either way.
   */
  const backOff = async (deferral: RecordDeferral, record: SQSRecord, kind: RecordBackoff, reason: string) => {
    const { receiveCount } = receiveOf(record);
    const seconds =
      kind === 'pause'
        ? backoff.capSeconds
        : kind === 'throttle'
          ? backoffSeconds(receiveCount, backoff, deps.random)
          : secondsUntil(kind.until, deps.clock(), longestHold);
    try {
      await deferral.defer(record.receiptHandle, seconds);
      deps.metrics.count(METRIC.RecordBackedOff);
      deps.log.info('Record backed off for the providers\' pace or quiet hours', {
        sqsMessageId: record.messageId,
        receiveCount,
        seconds,
        kind: typeof kind === 'string' ? kind : 'quiet-hours',
        reason,
      });
    } catch (error) {
      deps.log.warn('Could not back the record off; it returns after the queue visibility timeout', {
        sqsMessageId: record.messageId,
        receiveCount,
        reason,
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
    }
  };

  const handleRecord = async (record: SQSRecord, ctx: RecordContext) => {
    try {
      return await processRecord({ messageId: record.messageId, body: record.body, receive: receiveOf(record) }, ctx);
    } catch (error) {
      // Every record listed in the batch response: it is received again, or moved to the DLQ past maxReceiveCount.
      deps.metrics.count(METRIC.RecordRetried);
      if (error instanceof RetryLaterError) {
        if (error.backoff && deps.deferral) {
          await backOff(deps.deferral, record, error.backoff, error.message);
        } else {
          // Otherwise a record that comes back (out of time, another worker's claim, a ledger error) says nowhere why.
          deps.log.info('Record handed back unfinished; it returns after the queue visibility timeout', {
            sqsMessageId: record.messageId,
            receiveCount: receiveOf(record).receiveCount,
            reason: error.message,
          });
        }
      } else {
        deps.log.error('Record processing failed; it will be redelivered', {
          sqsMessageId: record.messageId,
          error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
        });
      }
      throw error;
    }
  };

  const base = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // Before new work: a record of this batch may be the one whose claim is kept.
    await keptWrites.writeAll(keptWritesContext);
    const ctx: RecordContext = {
      ...deps,
      keptWrites,
      limit: (task) => limit(task),
      hasTimeForDelivery: () => context.getRemainingTimeInMillis() > timeNeededMs,
      latestSendStartMs: () => realTime() + context.getRemainingTimeInMillis() - timeNeededMs,
    };
    // One processor per invocation: it holds the batch's failure list.
    const response = await processPartialResponse(event, (record: SQSRecord) => handleRecord(record, ctx), new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
    });
    // Returns at once when nothing is kept.
    if (deps.waitForLedgerBeforeReturning) {
      const deadlineMs = realTime() + context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS;
      await keptWrites.writeUntil(keptWritesContext, { deadlineMs, roundMs: LEDGER_REQUEST_ROUND_MS });
    }
    return response;
  };
  return instrumentHandler(base, deps);
}

/**
 * The visibility timeout that brings a record back at `untilMs`, never before it: whole seconds rounded
 * up, at least 1, at most `longestSeconds`, what SQS still accepts after this receive (a longer wait is
 * deferred again at the next receive).
 */
export function secondsUntil(untilMs: number, nowMs: number, longestSeconds: number): number {
  return Math.min(longestSeconds, Math.max(1, Math.ceil((untilMs - nowMs) / 1000)));
}

/** Which receive of its message an SQS record is, from the attributes Lambda passes on. */
export function receiveOf(record: Pick<SQSRecord, 'attributes'>): ReceiveInfo {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  const sentAt = Number(record.attributes?.SentTimestamp);
  return {
    receiveCount: Number.isInteger(count) && count > 0 ? count : 1,
    sentAtMs: Number.isFinite(sentAt) && sentAt > 0 ? sentAt : undefined,
  };
}
