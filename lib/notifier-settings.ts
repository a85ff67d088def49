import { Duration } from 'aws-cdk-lib';
import { timingViolations } from '../functions/core/timing-invariants';
import type { BackoffSettings } from '../functions/core/visibility-backoff';
import type { IdempotentNotifierProps } from './notifier-props';
import { resolveThrottleBackoff } from './send-pace';

/** Smallest allowed `maxReceiveCount`: fewer receives let throttled deliveries reach the DLQ unprocessed. */
export const MIN_MAX_RECEIVE_COUNT = 5;

/** The settings the construct resolved from its props (defaults applied); used for invariants and env. */
export interface NotifierSettings {
  readonly functionTimeout: Duration;
  readonly claimTimeout: Duration;
  readonly sendTimeout: Duration;
  readonly ledgerRetention: Duration;
  readonly replayWindow: Duration;
  readonly visibilityTimeout: Duration;
  readonly queueRetention: Duration;
  readonly deadLetterQueueRetention: Duration;
  readonly maxReceiveCount: number;
  readonly throttleBackoff: BackoffSettings;
}

/** The props with every default applied (an existing queue's declared settings win over the queue props). */
export function resolveSettings(props: IdempotentNotifierProps): NotifierSettings {
  const functionTimeout = props.functionTimeout ?? Duration.seconds(30);
  const existing = props.existingQueue;
  return {
    functionTimeout,
    claimTimeout: props.claimTimeout ?? Duration.seconds(120),
    sendTimeout: props.sendTimeout ?? Duration.seconds(10),
    ledgerRetention: props.ledgerRetention ?? Duration.days(30),
    replayWindow: props.replayWindow ?? Duration.days(7),
    visibilityTimeout:
      existing?.visibilityTimeout ?? props.visibilityTimeout ?? Duration.seconds(6 * functionTimeout.toSeconds()),
    queueRetention: existing?.retentionPeriod ?? props.queueRetention ?? Duration.days(4),
    deadLetterQueueRetention:
      existing?.deadLetterRetentionPeriod ?? props.deadLetterQueueRetention ?? Duration.days(14),
    maxReceiveCount: existing?.maxReceiveCount ?? props.maxReceiveCount ?? 100,
    throttleBackoff: resolveThrottleBackoff(props.throttleBackoff),
  };
}

/**
 * Throws one Error listing every unsafe setting (each message names both values).
 * The timing rules themselves live in `functions/core/timing-invariants.ts`, shared with the handler.
 */
export function assertSafe(r: NotifierSettings, otherViolations: readonly string[]): void {
  const violations = [...otherViolations];
  violations.push(...timingViolations({
    functionTimeoutSeconds: r.functionTimeout.toSeconds(),
    claimTimeoutSeconds: r.claimTimeout.toSeconds(),
    sendTimeoutMs: r.sendTimeout.toMilliseconds(),
    ledgerRetentionSeconds: r.ledgerRetention.toSeconds(),
    queue: {
      visibilityTimeoutSeconds: r.visibilityTimeout.toSeconds(),
      retentionSeconds: r.queueRetention.toSeconds(),
      deadLetterRetentionSeconds: r.deadLetterQueueRetention.toSeconds(),
      replayWindowSeconds: r.replayWindow.toSeconds(),
      // The steps the sender and the reclaimer get as THROTTLE_BACKOFF_BASE_SECONDS / _CAP_SECONDS.
      maxReceiveCount: r.maxReceiveCount,
      backoff: r.throttleBackoff,
    },
  }));
  if (!(Number.isInteger(r.maxReceiveCount) && r.maxReceiveCount >= MIN_MAX_RECEIVE_COUNT)) {
    violations.push(
      `maxReceiveCount (${r.maxReceiveCount}) must be an integer of at least ${MIN_MAX_RECEIVE_COUNT}, ` +
        'or throttled deliveries reach the dead-letter queue unprocessed',
    );
  }
  const retentionSeconds = r.ledgerRetention.toSeconds();
  if (retentionSeconds % 86_400 !== 0) {
    violations.push(`ledger retention (${retentionSeconds}s) must be a whole number of days (86400s each)`);
  }
  if (violations.length > 0) {
    throw new Error(`IdempotentNotifier: unsafe configuration:\n - ${violations.join('\n - ')}`);
  }
}
