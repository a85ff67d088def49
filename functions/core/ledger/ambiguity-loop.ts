/**
 * Provider calls of one key that ended the same way in a row without an answer from the provider (no HTTP
 * response): the kind of failure, the error's code or name (`ECONNRESET`, `AbortError`, `ProviderAdapterError`),
 * and how many calls in a row met it. Kept on the ledger row between attempts.
 */
export interface AmbiguityStreak {
  readonly unanswered: string;
  readonly calls: number;
}

/**
 * Consecutive unanswered calls of one kind after which the message ends (`UNKNOWN`, counted
 * `AmbiguityLoopStopped`, alarmed) instead of being sent again. Why 3: two in a row can still be chance (a
 * connection pool's stale sockets, a provider blip); a third identical failure on one key, with nothing to show
 * any of them reached the provider, is a failure that will repeat on every attempt, as a fault of our own
 * does (a serializer, an adapter that throws). Each further round would be one more counted possible duplicate
 * (`otp` resends at every receive) or one more 5-minute evidence wait (`transactional`), until the dead-letter
 * queue 100 receives later (the default `maxReceiveCount`). With 3, a loop costs at most 2 resends.
 */
export const AMBIGUITY_LOOP_LIMIT = 3;

/**
 * The streak after a call whose outcome is unknown: one call more when it failed as the streak's calls did, a new
 * streak of one when it failed another way, and none when the provider answered (a 5xx, a 200 without an id),
 * which is evidence the request reached it. A refusal in between (certainly not sent) is not a call that met
 * ambiguity: it leaves the streak as it is.
 */
export function nextAmbiguityStreak(previous: AmbiguityStreak | undefined, unanswered: string | undefined): AmbiguityStreak | undefined {
  if (unanswered === undefined) return undefined;
  return { unanswered, calls: previous?.unanswered === unanswered ? previous.calls + 1 : 1 };
}

/** Whether the streak is a loop that ends here. */
export function isAmbiguityLoop(streak: AmbiguityStreak | undefined): streak is AmbiguityStreak {
  return streak !== undefined && streak.calls >= AMBIGUITY_LOOP_LIMIT;
}
