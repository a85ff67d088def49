import { shortestBackoffTotalSeconds, type BackoffSettings } from '../functions/core/queue/visibility-backoff';

/** The queue settings that bound how long a message can wait unsent. */
export interface BacklogQueueSettings {
  /** The queue's message retention, in seconds. */
  readonly retentionSeconds: number;
  /** The redrive policy's maxReceiveCount. */
  readonly maxReceiveCount: number;
  /** The visibility backoff of throttled and rate-limited records. */
  readonly backoff: BackoffSettings;
}

/**
 * Share of the loss horizon a backlog may reach before the `BacklogAgeNearLimit` alarm fires.
 *
 * A quarter, not a half: `ApproximateAgeOfOldestMessage` leaves out every message received three
 * times or more (SQS moves it to the back of the queue), so it shows the oldest message the sender has
 * barely tried; the backed-off ones it hides are older and nearer the limit. A quarter leaves an
 * operator at least three quarters of the horizon (18 h at the shortest horizon synth accepts) to
 * raise a quota or slow the producers.
 */
export const BACKLOG_AGE_ALARM_FRACTION = 0.25;

/**
 * The earliest a waiting message can be lost: when queue retention deletes it, or when a message
 * deferred on every receive (each backoff step at its shortest, half the step) uses up
 * `maxReceiveCount` and is dead-lettered unsent. With the defaults (4 days; 100 receives; 10 s to
 * 40 min) that is the dead-letter bound, 110,475 s (about 30.7 h).
 */
export function backlogLossHorizonSeconds(q: BacklogQueueSettings): number {
  return Math.min(q.retentionSeconds, shortestBackoffTotalSeconds(q.maxReceiveCount - 1, q.backoff));
}

/** The default `BacklogAgeNearLimit` threshold: {@link BACKLOG_AGE_ALARM_FRACTION} of the loss horizon, whole seconds. */
export function defaultBacklogAgeAlarmSeconds(q: BacklogQueueSettings): number {
  return Math.floor(backlogLossHorizonSeconds(q) * BACKLOG_AGE_ALARM_FRACTION);
}
