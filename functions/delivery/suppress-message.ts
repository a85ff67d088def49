import { METRIC } from '../core/observability/metric-names';
import type { Suppression } from '../core/policy/suppression';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish } from './held-claim-writes';

/**
 * SUPPRESSED: never sent, by a rule of the gate (a destination, consent, a limit) or because the provider
 * refused for consent. Counted as `Suppressed` with class and reason (and as `Unsubscribed` / `OptedOut`
 * for consent), logged without the address, written fenced on the held claim.
 */
export async function suppressMessage(attempt: DeliveryAttempt, { claim }: HeldClaim, suppression: Suppression): Promise<MessageResult> {
  const { ctx, plan } = attempt;
  const { reason, detail } = suppression;
  ctx.metrics.count(METRIC.Suppressed, { messageClass: plan.messageClass.name, reason });
  if (reason === 'Unsubscribed' || reason === 'OptedOut') count(attempt, METRIC[reason]);
  ctx.log.warn('Message suppressed: never sent', { ...logContext(attempt), reason, detail });
  return finish(attempt, claim, { state: 'SUPPRESSED', suppression }, 'policy');
}
