import type { LogPort } from '../functions/core/observability/log-port';
import type { SendRateGovernor } from '../functions/core/policy/send-rate-governor';
import { RESENT_AFTER_AMBIGUITY_LOG } from '../functions/delivery/deliver-message';
import { SENDING_AGAIN_IN_PLACE_LOG } from '../functions/delivery/provider-call';

/* What the wire run watches besides the providers: each lane's governors, the senders' own timeouts and counted
   resends, and the invocations Lambda killed. */

/** Watches every governor of each lane: the throttling answers it hears, and the ones after which its pace is lower. */
export class PaceWatch {
  private readonly counts = new Map<string, { throttlingAnswers: number; cuts: number }>();
  watch(lane: string, governor: SendRateGovernor): Pick<SendRateGovernor, 'acquire' | 'throttled'> {
    const counts = this.counts.get(lane) ?? this.counts.set(lane, { throttlingAnswers: 0, cuts: 0 }).get(lane)!;
    return {
      acquire: (channel, latestStartMs) => governor.acquire(channel, latestStartMs),
      throttled: (channel) => {
        const before = governor.factorAt(channel, Date.now());
        governor.throttled(channel);
        counts.throttlingAnswers += 1;
        if (governor.factorAt(channel, Date.now()) < before) counts.cuts += 1;
      },
    };
  }
  of(lane: string): { readonly throttlingAnswers: number; readonly cuts: number } {
    return { ...(this.counts.get(lane) ?? { throttlingAnswers: 0, cuts: 0 }) };
  }
}

/** An invocation Lambda ended (its timeout), not one that answered or threw. */
export function killedByTimeout(invocation: { readonly ending: string }): boolean {
  return !['response', 'threw', 'invalid-response'].includes(invocation.ending);
}

/**
 * Keys of the messages whose record was in an invocation Lambda killed (its timeout): a send of
 * theirs may have reached the provider with nobody left to record it, the same unknown as a crash.
 */
export function killedKeys(
  invocations: readonly { readonly messageIds: readonly string[]; readonly ending: string }[],
  bodyOfMessage: ReadonlyMap<string, string>,
  keysOfBody: (body: string) => readonly string[],
): Map<string, number> {
  const killed = new Map<string, number>();
  for (const invocation of invocations) {
    if (!killedByTimeout(invocation)) continue;
    for (const messageId of invocation.messageIds) {
      const body = bodyOfMessage.get(messageId);
      if (body === undefined) continue;
      for (const key of keysOfBody(body)) killed.set(key, (killed.get(key) ?? 0) + 1);
    }
  }
  return killed;
}

/**
 * Passes the sender's logs on and counts, per key prefix, the provider calls it timed out on
 * itself: on a loaded machine an answer can arrive after the sender's abort, which no proxy sees.
 */
export class SendTimeoutLog implements LogPort {
  readonly perKeyPrefix = new Map<string, number>();
  /** Resends the sender counted as possible duplicates (`ResentAfterAmbiguity`), per key prefix. */
  readonly resendsPerKeyPrefix = new Map<string, number>();
  /** Throttled sends made again in place, per lane. */
  readonly inPlacePerLane = new Map<string, number>();
  constructor(private readonly inner: LogPort) {}
  /** This log for one lane's senders: the same counts, and that lane's in-place retries. */
  forLane(lane: string): LogPort {
    return {
      info: (message, attributes) => this.info(message, attributes),
      warn: (message, attributes) => {
        if (message === SENDING_AGAIN_IN_PLACE_LOG) this.inPlacePerLane.set(lane, (this.inPlacePerLane.get(lane) ?? 0) + 1);
        this.warn(message, attributes);
      },
      error: (message, attributes) => this.error(message, attributes),
    };
  }
  info(message: string, attributes?: Record<string, unknown>): void {
    this.inner.info(message, attributes);
  }
  warn(message: string, attributes?: Record<string, unknown>): void {
    const reason = typeof attributes?.reason === 'string' ? attributes.reason : '';
    const key = typeof attributes?.key === 'string' ? attributes.key : undefined;
    if (message === 'Provider outcome unknown' && key && /^(SendTimeout|TimeoutError)/.test(reason)) {
      this.perKeyPrefix.set(key, (this.perKeyPrefix.get(key) ?? 0) + 1);
    }
    if (message === RESENT_AFTER_AMBIGUITY_LOG && key) this.resendsPerKeyPrefix.set(key, (this.resendsPerKeyPrefix.get(key) ?? 0) + 1);
    this.inner.warn(message, attributes);
  }
  error(message: string, attributes?: Record<string, unknown>): void {
    this.inner.error(message, attributes);
  }
}
