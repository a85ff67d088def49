/**
 * How long a record that the providers throttled stays invisible before SQS delivers it again:
 * exponential in its receive count, capped, with "equal jitter" (half fixed, half random), so
 * retries spread out and each still waits at least half its step (which the synth-time invariant
 * counts on).
 */
export interface BackoffSettings {
  /** The first step, in seconds. */
  readonly baseSeconds: number;
  /** The largest step, in seconds (at most 43,200: SQS's visibility limit). */
  readonly capSeconds: number;
}

/** Built-in steps: 10 s doubling to 40 min. With maxReceiveCount 100 that rides out 24 h of throttling. */
export const DEFAULT_BACKOFF: BackoffSettings = { baseSeconds: 10, capSeconds: 2_400 };

/** SQS's largest visibility timeout. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** The step before jitter for the n-th receive (n >= 1). */
export function backoffStepSeconds(receiveCount: number, settings: BackoffSettings): number {
  const exponent = Math.max(0, Math.min(30, receiveCount - 1));
  return Math.min(settings.capSeconds, settings.baseSeconds * 2 ** exponent);
}

/** The visibility timeout to set after the n-th receive was throttled; `random` in [0, 1). */
export function backoffSeconds(receiveCount: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const step = backoffStepSeconds(receiveCount, settings);
  return Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(step / 2 + random() * (step / 2)));
}

/** The longest a record can stay invisible over its first `deferrals` throttled receives. */
export function longestBackoffTotalSeconds(deferrals: number, settings: BackoffSettings): number {
  let total = 0;
  for (let n = 1; n <= deferrals; n += 1) total += backoffStepSeconds(n, settings);
  return total;
}

/** The least time a record stays invisible over its first `deferrals` throttled receives (half of each step). */
export function shortestBackoffTotalSeconds(deferrals: number, settings: BackoffSettings): number {
  return longestBackoffTotalSeconds(deferrals, settings) / 2;
}
