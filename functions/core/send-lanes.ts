/**
 * Priority lanes: which queue (and which sender, at which share of the account's send rate) a message
 * class travels in. A login code must never wait behind a marketing blast, so the classes a
 * deployment sends in bulk get a lane of their own and every other class (an unknown one included)
 * the urgent lane. docs/design.md ("Sending at the providers' pace") states the design.
 */

/** The two lanes: `urgent` for codes and order updates, `bulk` for what may wait (newsletters). */
export type LaneName = 'urgent' | 'bulk';

export const LANE_NAMES: readonly LaneName[] = ['urgent', 'bulk'];

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
