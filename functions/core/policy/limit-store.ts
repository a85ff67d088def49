import type { ScopeCount } from './message-limits';

/** `counted`: the message holds a slot in every window (now, or since an earlier attempt). */
export type CountResult = 'counted' | 'refused';

/**
 * Where limit counters live. One conditional write per counter: the digest is added to every window
 * of the counter only if each window has room or already holds it, so a retry after the write's own
 * success finds itself counted, and two writers never both take a counter's last slot.
 * Any error (throttled, unreachable) is thrown: the caller neither sends unchecked nor suppresses.
 */
export interface LimitStore {
  count(counter: ScopeCount, digest: Uint8Array): Promise<CountResult>;
}
