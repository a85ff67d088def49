import type { MetricName } from '../core/observability/metric-names';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish } from './held-claim-writes';

/**
 * Ends a held message without a provider call, by a rule that says it must not be sent any more (its lifetime ran
 * out, its row reached its bound): FAILED when no attempt may have reached the provider ("certainly not
 * delivered"), UNKNOWN when an earlier one may have ("possibly delivered"), never blurring the two. Counted as
 * `metric` with channel and class, logged with the reason, written fenced on the held claim.
 */
export async function endUndelivered(
  attempt: DeliveryAttempt,
  { claim, lastAmbiguousAt }: HeldClaim,
  { reason, metric, log }: { readonly reason: string; readonly metric: MetricName; readonly log: string },
): Promise<MessageResult> {
  const possiblyDelivered = lastAmbiguousAt !== undefined;
  count(attempt, metric);
  attempt.ctx.log.warn(log, { ...logContext(attempt), reason, possiblyDelivered });
  return finish(attempt, claim, possiblyDelivered ? { state: 'UNKNOWN', reason } : { state: 'FAILED', reason }, 'policy');
}
