import { longestHoldSeconds } from './quiet-hours-hold';
import { longestBackoffTotalSeconds, MAX_VISIBILITY_SECONDS, shortestBackoffTotalSeconds, type BackoffSettings } from './visibility-backoff';

/** How long an account can keep refusing sends: SES's daily quota is a rolling 24-hour window. */
export const DEFAULT_THROTTLE_HORIZON_SECONDS = 86_400;

/**
 * The timing rules that keep the ledger safe, checked in one place by both the CDK
 * stack (at synth) and the Lambda (at cold start). Each violation names both values.
 */
export interface TimingSettings {
  readonly functionTimeoutSeconds: number;
  readonly claimTimeoutSeconds: number;
  readonly sendTimeoutMs: number;
  readonly ledgerRetentionSeconds: number;
  /** Only known at synth time. */
  readonly queue?: {
    readonly visibilityTimeoutSeconds: number;
    readonly retentionSeconds: number;
    readonly deadLetterRetentionSeconds: number;
    readonly replayWindowSeconds: number;
    /** The redrive policy's maxReceiveCount. @default not checked */
    readonly maxReceiveCount?: number;
    /** The visibility backoff of throttled records. @default not checked */
    readonly backoff?: BackoffSettings;
    /** How long the account may keep throttling. @default DEFAULT_THROTTLE_HORIZON_SECONDS */
    readonly throttleHorizonSeconds?: number;
    /**
     * The longest quiet hours may hold a record (seconds): a class's window, an hour for a change of the clocks,
     * and for texts the spread of a country's zones (lib/notifier-consent.ts). A record held for it is deferred
     * to the window's end in steps of at most `longestHoldSeconds` (less than 12 hours), one receive each.
     * @default none (no class has quiet hours)
     */
    readonly quietHoursSeconds?: number;
    /** The event source's MaximumBatchingWindowInSeconds, which shortens the longest hold. @default 0 */
    readonly batchingWindowSeconds?: number;
  };
}

export function timingViolations(t: TimingSettings): string[] {
  const violations: string[] = [];
  if (!(t.claimTimeoutSeconds > t.functionTimeoutSeconds)) {
    violations.push(
      `claim timeout (${t.claimTimeoutSeconds}s) must exceed the sender function timeout (${t.functionTimeoutSeconds}s), ` +
        'or a live worker\'s claim looks stale and its message is sent twice',
    );
  }
  if (!(t.sendTimeoutMs < t.functionTimeoutSeconds * 1000)) {
    violations.push(
      `send timeout (${t.sendTimeoutMs}ms) must be below the sender function timeout (${t.functionTimeoutSeconds * 1000}ms), ` +
        'or Lambda kills the worker before it can record the outcome',
    );
  }
  if (t.queue) {
    const q = t.queue;
    if (q.visibilityTimeoutSeconds < 6 * t.functionTimeoutSeconds) {
      violations.push(
        `queue visibility timeout (${q.visibilityTimeoutSeconds}s) must be at least 6 x the sender function timeout ` +
          `(6 x ${t.functionTimeoutSeconds}s = ${6 * t.functionTimeoutSeconds}s), AWS's guidance for SQS event sources`,
      );
    }
    const horizon = q.retentionSeconds + q.deadLetterRetentionSeconds + q.replayWindowSeconds;
    if (t.ledgerRetentionSeconds < horizon) {
      violations.push(
        `ledger retention (${t.ledgerRetentionSeconds}s) must cover queue retention (${q.retentionSeconds}s) + ` +
          `DLQ retention (${q.deadLetterRetentionSeconds}s) + replay window (${q.replayWindowSeconds}s) = ${horizon}s, ` +
          'or a redelivered message finds its row gone and is sent again',
      );
    }
    if (q.maxReceiveCount !== undefined && q.backoff) {
      const holdSeconds = longestHoldSeconds({ functionTimeoutSeconds: t.functionTimeoutSeconds, batchingWindowSeconds: q.batchingWindowSeconds ?? 0 });
      violations.push(...backoffViolations(q.maxReceiveCount, q.backoff, { ...q, holdSeconds }));
    }
  }
  return violations;
}

/**
 * Throttling is backpressure, never loss: a record throttled for the whole horizon is still
 * redelivered (it has receives left, so it is not dead-lettered), and a record that backs off on
 * every receive reaches the DLQ before SQS's retention would silently delete it.
 */
function backoffViolations(
  maxReceiveCount: number,
  backoff: BackoffSettings,
  q: { readonly retentionSeconds: number; readonly throttleHorizonSeconds?: number; readonly quietHoursSeconds?: number; readonly holdSeconds: number },
): string[] {
  const violations: string[] = [];
  const horizon = q.throttleHorizonSeconds ?? DEFAULT_THROTTLE_HORIZON_SECONDS;
  const quiet = quietHoursReserve(q.quietHoursSeconds ?? 0, q.holdSeconds);
  // Quiet hours may hold a record on top of its throttling: their receives and their waits come first.
  const deferrals = maxReceiveCount - 1 - quiet.receives;
  // SQS counts its 12 hours from the receive: the cap must fit what it accepts then, as a quiet-hours hold does.
  if (backoff.capSeconds > q.holdSeconds || backoff.baseSeconds < 1 || backoff.baseSeconds > backoff.capSeconds) {
    violations.push(
      `throttle backoff base (${backoff.baseSeconds}s) and cap (${backoff.capSeconds}s) must satisfy 1 <= base <= cap <= ${q.holdSeconds}s ` +
        `(SQS's ${MAX_VISIBILITY_SECONDS}s visibility limit counts from the receive: less the batching window, the function timeout and a margin)`,
    );
  }
  const shortest = shortestBackoffTotalSeconds(deferrals, backoff);
  if (shortest < horizon) {
    violations.push(
      `maxReceiveCount (${maxReceiveCount}) with throttle backoff base ${backoff.baseSeconds}s, cap ${backoff.capSeconds}s waits at least ` +
        `${Math.floor(shortest)}s before the DLQ, less than the ${horizon}s an account can keep throttling: ` +
        'a throttled message would be dead-lettered unsent (raise maxReceiveCount or the backoff cap)',
    );
  }
  const longest = longestBackoffTotalSeconds(deferrals, backoff) + quiet.seconds;
  if (longest >= q.retentionSeconds) {
    violations.push(
      `queue retention (${q.retentionSeconds}s) must exceed the longest throttle backoff over maxReceiveCount ${maxReceiveCount} ` +
        `(${longest}s${quiet.seconds > 0 ? `, quiet hours' ${quiet.seconds}s included` : ''}), or a throttled message expires from the queue, unsent and unseen, before it can reach the DLQ`,
    );
  }
  return violations;
}

/**
 * What quiet hours take from a record's receives and retention in the worst case: the throttling horizon (a day)
 * meets at most two windows, each held in steps of at most `holdSeconds` (what SQS accepts after a receive: less
 * than its 12 hours, see quiet-hours-hold.ts), one receive each. A 12-hour hold is two steps, not one.
 */
export function quietHoursReserve(quietHoursSeconds: number, holdSeconds: number): { readonly receives: number; readonly seconds: number } {
  if (quietHoursSeconds <= 0) return { receives: 0, seconds: 0 };
  return { receives: 2 * Math.ceil(quietHoursSeconds / holdSeconds), seconds: 2 * quietHoursSeconds };
}
