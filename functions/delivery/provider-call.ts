import { systemClock } from '../core/clock';
import type { DeliveryOutcome } from '../core/provider/delivery-provider';
import { METRIC } from '../core/observability/metric-names';
import { realPaceClock } from '../core/policy/send-rate-governor';
import type { SendRequest } from '../core/templates/rendered-message';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { release } from './held-claim-writes';

/** The warning logged beside each `ResentAfterAmbiguity`, with the key prefix (the wire simulation counts it per key). */
export const RESENT_AFTER_AMBIGUITY_LOG = 'Resending after an unknown outcome (possible duplicate, per class policy)';

/** The warning logged before each throttled send is made again in place (the wire simulation counts them per lane). */
export const SENDING_AGAIN_IN_PLACE_LOG = 'Provider throttled; sending again in place';

/** What the provider answered this attempt's call: the hand-off from the send to settling. */
export interface ProviderAnswer {
  readonly outcome: DeliveryOutcome;
}

/**
 * The send phase: one provider call under the rate governor, made again in place, claim held, while the
 * provider answers throttled and the lane has a pause left that the invocation has time for (the urgent
 * lane's `throttleRetryPausesMs`). Only a throttling answer is retried in place: it proves nothing was sent.
 * Deferred unsent, claim handed back, when the invocation is out of time or no send slot comes in time.
 * `possibleDuplicate`: an earlier attempt may have sent it; the first call counts `ResentAfterAmbiguity`.
 */
export async function callProvider(
  attempt: DeliveryAttempt,
  { claim, lastAmbiguousAt }: HeldClaim,
  request: SendRequest,
  { possibleDuplicate }: { readonly possibleDuplicate: boolean },
): Promise<ProviderAnswer | MessageResult> {
  const { ctx, trace } = attempt;
  const provider = ctx.providers[request.message.channel];
  const realNow = (ctx.realTime ?? systemClock)();
  const latestStart = ctx.latestSendStartMs?.() ?? realNow + ctx.sendTimeoutMs;
  if (realNow > latestStart) {
    // Slow ledger writes ate the invocation: a call now could outlive it, leaving a send nobody recorded.
    await release(attempt, claim, { reason: 'transient', detail: 'OutOfTime: too little of the invocation left to send and record', lastAmbiguousAt });
    return { settled: false, why: 'out-of-time' };
  }
  for (let retry = 0; ; retry += 1) {
    if (ctx.governor && !(await ctx.governor.acquire(request.message.channel, latestStart))) {
      count(attempt, METRIC.RateLimitedDeferral);
      await release(attempt, claim, { reason: 'transient', detail: 'RateLimited: no send slot before the invocation ends', lastAmbiguousAt });
      return { settled: false, why: 'rate-limited' };
    }
    if (possibleDuplicate && retry === 0) {
      // Here, where the provider is called: the gate or the governor may have ended or deferred it without a call.
      count(attempt, METRIC.ResentAfterAmbiguity);
      ctx.log.warn(RESENT_AFTER_AMBIGUITY_LOG, logContext(attempt));
    }
    trace.mayHaveReachedProvider = true;
    let outcome: DeliveryOutcome;
    try {
      outcome = await provider.send({ ...request, claimVersion: claim.claimVersion }, AbortSignal.timeout(ctx.sendTimeoutMs));
    } catch (error) {
      // No answer from the provider can be told from a throw: the same throw on every attempt is a loop that ends.
      outcome = { kind: 'ambiguous', reason: `ProviderAdapterError: ${(error as Error).message ?? String(error)}`, unanswered: 'ProviderAdapterError' };
    }
    if (outcome.kind === 'transient' || outcome.kind === 'permanent') trace.mayHaveReachedProvider = false;
    const pauseMs = ctx.throttleRetryPausesMs?.[retry];
    const inPlace =
      outcome.kind === 'transient' && outcome.cause === 'throttled' && pauseMs !== undefined &&
      (ctx.realTime ?? systemClock)() + pauseMs <= latestStart;
    if (!inPlace) return { outcome };
    // Certainly not sent: the same claim sends again once the provider's second has room.
    count(attempt, METRIC.ProviderThrottled);
    ctx.governor?.throttled(request.message.channel);
    ctx.log.warn(SENDING_AGAIN_IN_PLACE_LOG, { ...logContext(attempt), retry: retry + 1, pauseMs });
    await (ctx.sleep ?? realPaceClock.sleep)(pauseMs);
  }
}
