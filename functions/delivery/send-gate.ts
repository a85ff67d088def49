import { METRIC } from '../core/metric-names';
import type { SendRequest } from '../core/rendered-message';
import { guardMessage } from './abuse-guard';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish, release } from './held-claim-writes';

/** Past the gate: the request in hand, which the send takes (never the plan's union again). */
export interface ClearedToSend {
  readonly request: SendRequest;
}

/**
 * What may stop a held message before its send, in order: a message that can never be sent (no address,
 * no template: FAILED), the destination rules and the class's limits (SUPPRESSED, see abuse-guard.ts),
 * and a limit store that cannot answer (the claim handed back unsent, the record backed off). A new
 * rule that keeps a message from the provider without a call lands here.
 */
export async function passSendGate(attempt: DeliveryAttempt, held: HeldClaim): Promise<ClearedToSend | MessageResult> {
  const { ctx, plan } = attempt;
  const { claim, countAtMs, lastAmbiguousAt } = held;
  const prepared = plan.prepared;
  if (!prepared.ok) {
    count(attempt, METRIC.PermanentFailure);
    ctx.log.warn('Message cannot be sent', { ...logContext(attempt), reason: prepared.reason });
    return finish(attempt, claim, { state: 'FAILED', reason: prepared.reason }, 'unsendable');
  }
  const verdict = await guardMessage(plan, prepared.request, countAtMs, ctx);
  switch (verdict.kind) {
    case 'send':
      return { request: prepared.request };
    case 'suppress': {
      const { reason, detail } = verdict.suppression;
      ctx.metrics.count(METRIC.Suppressed, { messageClass: plan.messageClass.name, reason });
      ctx.log.warn('Message suppressed: never sent', { ...logContext(attempt), reason, detail });
      return finish(attempt, claim, { state: 'SUPPRESSED', suppression: verdict.suppression }, 'policy');
    }
    case 'store-failed': {
      const name = verdict.error instanceof Error ? verdict.error.name : 'unknown';
      count(attempt, METRIC.LimitStoreError);
      ctx.log.error('Limit store failed; the claim is handed back unsent and the record backs off', { ...logContext(attempt), error: name });
      await release(attempt, claim, { reason: 'transient', detail: `LimitStoreUnavailable: ${name}`, lastAmbiguousAt });
      return { settled: false, why: 'limit-store-unavailable' };
    }
  }
}
