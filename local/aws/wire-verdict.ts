import { keyPrefix } from '../../functions/core/event/idempotency-key';
import type { LedgerState } from '../../functions/core/ledger/ledger-record';

/** What the provider-side evidence says of one run, judged independently of the sender's metrics. */
export interface WireVerdict {
  /** Deliverable messages of the workload. */
  readonly messages: number;
  /** Sends the local providers accepted, in all. */
  readonly acceptedSends: number;
  /**
   * Extra accepted sends of a key that no ambiguous request of that key explains, or (when the sender's
   * counted resends are given) that the sender never counted as possible duplicates.
   */
  readonly unexplainedDuplicates: number;
  /**
   * Of those, the ones an ambiguous request would explain but the sender did not count (`ResentAfterAmbiguity`):
   * a resend made without the ambiguity being recorded, such as one in place under the same claim.
   */
  readonly uncountedDuplicates: number;
  /** Extra accepted sends explained by an earlier request that reached the provider without an answer (counted, allowed). */
  readonly explainedDuplicates: number;
  /**
   * Of those, the ones only the sender's own send timeout explains: the answer came back after
   * the sender had given up on it (a CPU-starved client), which the proxy cannot see.
   */
  readonly explainedBySenderTimeouts: number;
  /** Of those, the ones only an invocation Lambda killed mid-batch explains (its timeout: nobody left to record). */
  readonly explainedByKills: number;
  /** Messages not terminal at the end (PENDING, no row, or dead-lettered). */
  readonly lost: number;
  /** Messages UNKNOWN although no request of theirs may have reached the provider. */
  readonly unknownWithoutAmbiguity: number;
  /** Messages FAILED although the provider never rejected them. */
  readonly failedWithoutRejection: number;
  /**
   * Resends the sender counted as possible duplicates (`ResentAfterAmbiguity`) beyond the requests
   * of that key that may have reached the provider: an ambiguity counted that never was.
   */
  readonly possibleDuplicatesWithoutAmbiguity: number;
  /** Final states of the deliverable messages. */
  readonly states: Readonly<Record<LedgerState | 'missing', number>>;
  /** Up to 10 keys of each kind of violation, for a reader to look up. */
  readonly examples: Readonly<Record<'duplicate' | 'lost' | 'unknown' | 'failed' | 'counted', readonly string[]>>;
}

/** One send request as the proxy saw it. */
export interface ProviderRequestFate {
  readonly key: string;
  /** It reached the provider and its own answer never got back to the sender (a fault, or the sender's own timeout). */
  readonly reachedWithoutAnswer: boolean;
  /** The provider rejected the recipient or the content (a documented permanent error). */
  readonly rejected: boolean;
}

/**
 * Judges a run from the providers' own counts and the proxy's record of every send request:
 * a second accepted send of a key is explained only by an earlier request of that key that
 * reached the provider and whose answer was lost, and that the sender counted as a possible
 * duplicate; UNKNOWN only by such a request; FAILED only by a rejection of the recipient or content.
 */
export function judgeWireRun(input: {
  readonly deliverableKeys: Iterable<string>;
  readonly acceptedPerKey: ReadonlyMap<string, number>;
  readonly finalStates: ReadonlyMap<string, LedgerState>;
  readonly providerRequests: readonly ProviderRequestFate[];
  /**
   * Send calls the sender itself timed out on (abort at the send timeout), per key prefix
   * (`keyPrefix`, the short key the sender logs). @default none
   */
  readonly senderTimeouts?: ReadonlyMap<string, number>;
  /** Per key: invocations Lambda killed (its timeout) while the key's record was in the batch. @default none */
  readonly killedInFlight?: ReadonlyMap<string, number>;
  /**
   * Resends counted as possible duplicates, per key prefix (as `senderTimeouts`). When given, an extra
   * accepted send is explained only up to this count: every resend that may duplicate must be counted.
   * @default not judged: only the requests explain
   */
  readonly countedResends?: ReadonlyMap<string, number>;
}): WireVerdict {
  const reachedWithoutAnswer = new Map<string, number>();
  const rejected = new Set<string>();
  for (const request of input.providerRequests) {
    if (request.reachedWithoutAnswer) reachedWithoutAnswer.set(request.key, (reachedWithoutAnswer.get(request.key) ?? 0) + 1);
    if (request.rejected) rejected.add(request.key);
  }
  const states: Record<LedgerState | 'missing', number> = { PENDING: 0, SENT: 0, FAILED: 0, UNKNOWN: 0, SUPPRESSED: 0, missing: 0 };
  const examples = { duplicate: [] as string[], lost: [] as string[], unknown: [] as string[], failed: [] as string[], counted: [] as string[] };
  const note = (kind: keyof typeof examples, key: string) => {
    if (examples[kind].length < 10) examples[kind].push(key);
  };
  let messages = 0;
  let acceptedSends = 0;
  let unexplainedDuplicates = 0;
  let uncountedDuplicates = 0;
  let explainedDuplicates = 0;
  let explainedBySenderTimeouts = 0;
  let explainedByKills = 0;
  let lost = 0;
  let unknownWithoutAmbiguity = 0;
  let failedWithoutRejection = 0;
  let possibleDuplicatesWithoutAmbiguity = 0;

  for (const key of input.deliverableKeys) {
    messages += 1;
    const accepted = input.acceptedPerKey.get(key) ?? 0;
    acceptedSends += accepted;
    const byFaults = reachedWithoutAnswer.get(key) ?? 0;
    const byKills = input.killedInFlight?.get(key) ?? 0;
    const allowed = byFaults + byKills + (input.senderTimeouts?.get(keyPrefix(key)) ?? 0);
    const extra = Math.max(0, accepted - 1);
    const counted = input.countedResends === undefined ? Number.POSITIVE_INFINITY : (input.countedResends.get(keyPrefix(key)) ?? 0);
    const countedBeyond = (input.countedResends?.get(keyPrefix(key)) ?? 0) - allowed;
    if (countedBeyond > 0) {
      possibleDuplicatesWithoutAmbiguity += countedBeyond;
      note('counted', key);
    }
    const explained = Math.min(extra, allowed, counted);
    explainedDuplicates += explained;
    explainedBySenderTimeouts += Math.max(0, explained - byFaults - byKills);
    explainedByKills += Math.max(0, Math.min(explained, byFaults + byKills) - byFaults);
    uncountedDuplicates += Math.min(extra, allowed) - explained;
    if (extra > explained) {
      unexplainedDuplicates += extra - explained;
      note('duplicate', key);
    }
    const state = input.finalStates.get(key);
    states[state ?? 'missing'] += 1;
    if (state === undefined || state === 'PENDING') {
      lost += 1;
      note('lost', key);
    } else if (state === 'UNKNOWN' && allowed === 0) {
      unknownWithoutAmbiguity += 1;
      note('unknown', key);
    } else if (state === 'FAILED' && !rejected.has(key)) {
      failedWithoutRejection += 1;
      note('failed', key);
    }
  }
  return {
    messages,
    acceptedSends,
    unexplainedDuplicates,
    uncountedDuplicates,
    explainedDuplicates,
    explainedBySenderTimeouts,
    explainedByKills,
    lost,
    unknownWithoutAmbiguity,
    failedWithoutRejection,
    possibleDuplicatesWithoutAmbiguity,
    states,
    examples,
  };
}

/** True when the run kept every promise. */
export function wireVerdictHolds(v: WireVerdict): boolean {
  return v.unexplainedDuplicates === 0 && v.lost === 0 && v.unknownWithoutAmbiguity === 0 && v.failedWithoutRejection === 0;
}
