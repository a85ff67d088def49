/**
 * Priority lanes: which queue (and which sender, at which share of the account's send rate) a message
 * class travels in. A login code must never wait behind a marketing blast, so the classes a
 * deployment sends in bulk get a lane of their own and every other class (an unknown one included)
 * the urgent lane. docs/design/sending-pace.md ("Sending at the providers' pace") states the design.
 */

/** The two lanes: `urgent` for codes and order updates, `bulk` for what may wait (newsletters). */
export type LaneName = 'urgent' | 'bulk';

/** The classes sent in the bulk lane unless a deployment says otherwise. */
export const DEFAULT_BULK_CLASSES: readonly string[] = ['marketing'];

/**
 * The lane of an event, from its `messageClass` as a producer wrote it: bulk only for a listed class;
 * anything else, a missing or non-string class included, goes urgent, where the sender dead-letters
 * what is invalid with its reason. The topic's filter policies ({@link laneClassMatcher}) say the same.
 */
export function laneOfMessageClass(messageClass: unknown, bulkClasses: readonly string[]): LaneName {
  return typeof messageClass === 'string' && bulkClasses.includes(messageClass) ? 'bulk' : 'urgent';
}

/**
 * The SNS filter policy (scope `MessageBody`) or EventBridge pattern value for `messageClass` that
 * routes into `lane`: the bulk classes, or their complement with the key's absence included, so that
 * every JSON event matches exactly one lane.
 */
export function laneClassMatcher(lane: LaneName, bulkClasses: readonly string[]): readonly unknown[] {
  return lane === 'bulk' ? [...bulkClasses] : [{ 'anything-but': [...bulkClasses] }, { exists: false }];
}

/** How the senders of one lane pace (their `SEND_RATE_*` variables). */
export interface LanePace {
  /** The processes this lane's share is split between (`SEND_RATE_SHARES`). */
  readonly sendRateShares: number;
  /** The lane's share of each channel's account rate (`SEND_RATE_ACCOUNT_SHARE`). */
  readonly accountShare: number;
  /** Whether its senders give way when a provider throttles (`SEND_RATE_YIELDS_TO_THROTTLING`). */
  readonly yieldsToThrottling: boolean;
}

/** How many processes each lane may run, and how much of the account the bulk lane may use. */
export interface LaneCapacity {
  readonly urgentMaxConcurrency: number;
  readonly bulkMaxConcurrency: number;
  readonly bulkRateShare: number;
}

/** The bulk lane's share of each account rate unless configured: the rest is kept for the urgent lane. */
export const DEFAULT_BULK_RATE_SHARE = 0.8;

/**
 * Pauses (ms) before an urgent send the provider throttled is made again in place, its claim held, while the
 * invocation allows: a per-second limit has room again within a second, and a login code should not wait out
 * a backoff for it. Only then is the record backed off.
 */
export const URGENT_THROTTLE_RETRY_PAUSES_MS: readonly number[] = [250, 500];

/** Pauses for a sender of `lane`: the urgent lane's, none elsewhere. */
export function throttleRetryPausesMs(lane: LaneName | undefined): readonly number[] {
  return lane === 'urgent' ? URGENT_THROTTLE_RETRY_PAUSES_MS : [];
}

/** Seconds a throttled urgent record waits before its first retry (the bulk lane keeps the stack's longer steps). */
export const URGENT_THROTTLE_BACKOFF_BASE_SECONDS = 1;

/**
 * The urgent lane may use the whole account rate, split over its maximum concurrency and the
 * reclaimer (whose resends are urgent work). The bulk lane paces at `bulkRateShare` of it and yields
 * to throttling: while urgent sends stay under the part kept for them, the two never exceed the
 * account; when urgent bursts past it, the providers' throttling answers halve the bulk lane's pace.
 */
export function lanePace(lane: LaneName, capacity: LaneCapacity): LanePace {
  return lane === 'urgent'
    ? { sendRateShares: capacity.urgentMaxConcurrency + 1, accountShare: 1, yieldsToThrottling: false }
    : { sendRateShares: capacity.bulkMaxConcurrency, accountShare: capacity.bulkRateShare, yieldsToThrottling: true };
}
