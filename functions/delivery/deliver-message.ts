import type { LedgerRow } from '../core/ledger/ledger-record';
import { METRIC } from '../core/observability/metric-names';
import { isPastSettleBound, settleBoundMs } from '../core/ledger/settle-bound';
import type { DeliveryContext, MessageResult } from './delivery-context';
import { acquireClaim, type Acquired, resumeRow } from './acquire-claim';
import { count, type DeliveryAttempt, type HeldClaim, logContext, newDeliveryAttempt } from './delivery-attempt';
import { endUndelivered } from './end-undelivered';
import { ledgerErrorReason, ledgerRefusesRequest } from '../adapters/ledger-error-retry';
import { releaseAfterLedgerError } from './held-claim-writes';
import type { MessagePlan } from './message-plan';
import { callProvider } from './provider-call';
import { passSendGate } from './send-gate';
import { resolvePreviousAmbiguity } from './settle-ambiguity';
import { settleAnswer } from './settle-answer';

export type { DeliveryContext, MessageResult, SettledBy, UnsettledReason } from './delivery-context';
export { RESENT_AFTER_AMBIGUITY_LOG } from './provider-call';

/**
 * Where a delivery starts: a fresh claim of the plan's key (the sender), or a row read elsewhere
 * (the reclaimer), which is decided on and taken over fenced on its claim version. A row that
 * changed since it was read makes that takeover fail, which is an answer
 * (`owned-by-another-worker`), never a second send.
 */
export type DeliveryStart = { readonly kind: 'claim' } | { readonly kind: 'resume'; readonly row: LedgerRow };

/** The sender's start: claim the key. */
export const FRESH_CLAIM: DeliveryStart = { kind: 'claim' };

/**
 * Claim, send, record: the at-most-once core for one logical message, from either start, with the
 * same class policy and the same send. The result says whether the message is settled and, if so,
 * how (by this call's provider request, on evidence, by policy, ...): callers read that, never metrics.
 * Never throws; a ledger error leaves the message unsettled so SQS redelivers it.
 *
 * The phases, each a module with a typed hand-off (a new rule lands in the phase it belongs to):
 * 1. acquire (acquire-claim.ts): claim, or take over a released or dead claim, fenced → a {@link HeldClaim};
 * 2. an earlier attempt's ambiguity, by class policy and evidence (settle-ambiguity.ts); then the bound: a message
 *    still unsettled its class's time after its first claim ends without a call (settle-bound.ts, end-undelivered.ts);
 * 3. the send gate (send-gate.ts): unsendable, destination rules, limits → the request in hand;
 * 4. send (provider-call.ts): one provider call under the governor, throttling retried in place → its answer;
 * 5. settle (settle-answer.ts): the outcome recorded, or the claim handed back; this call's ambiguity by class.
 * The ledger writes of a held claim, and what a ledger error hands back, are held-claim-writes.ts.
 */
export async function deliver(plan: MessagePlan, start: DeliveryStart, ctx: DeliveryContext): Promise<MessageResult> {
  const attempt = newDeliveryAttempt(plan, ctx);
  let claimAnswered = false;
  try {
    const acquired: Acquired = start.kind === 'claim' ? await acquireClaim(attempt) : await resumeRow(attempt, start.row);
    claimAnswered = true;
    if ('settled' in acquired) return acquired;
    // The same attempt (its owner token and trace), sending the plan the claim holds.
    return await sendHeld(acquired.plan ? { ...attempt, plan: acquired.plan } : attempt, acquired);
  } catch (error) {
    count(attempt, METRIC.LedgerError);
    if (start.kind === 'claim' && !claimAnswered && ledgerRefusesRequest(error)) {
      ctx.log.error('Ledger refused the claim for what it holds; the record goes to the dead-letter queue', {
        ...logContext(attempt),
        error: ledgerErrorReason(error),
      });
      return { settled: false, why: 'ledger-refused', detail: `the ledger refused the claim: ${ledgerErrorReason(error)}` };
    }
    ctx.log.error('Ledger request failed; the record will be redelivered', {
      ...logContext(attempt),
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    await releaseAfterLedgerError(attempt, error);
    return { settled: false, why: 'ledger-error' };
  }
}

/** Holding the claim: settle an earlier ambiguous attempt per class policy, pass the gate, send, settle. */
async function sendHeld(attempt: DeliveryAttempt, held: HeldClaim): Promise<MessageResult> {
  const { lastAmbiguousAt } = held;
  let possibleDuplicate = false;
  if (lastAmbiguousAt !== undefined) {
    const resolved = await resolvePreviousAmbiguity(attempt, { ...held, lastAmbiguousAt });
    if ('settled' in resolved) return resolved;
    possibleDuplicate = resolved.possibleDuplicate;
  }
  // Nothing is retried forever: past its class's bound, the message ends without a call (settle-bound.ts).
  const { ctx, plan } = attempt;
  if (isPastSettleBound(held.countAtMs, plan.messageClass, ctx.timing, ctx.clock())) {
    const minutes = Math.round(settleBoundMs(plan.messageClass, ctx.timing) / 60_000);
    return endUndelivered(attempt, held, {
      reason: `SettleBoundReached: not settled within ${minutes} minutes of its first claim (${plan.messageClass.name}); ${held.previous?.attempts ?? 1} attempts`,
      metric: METRIC.SettleBoundReached,
      log: 'Message not settled within its bound; ended without a call',
    });
  }
  const cleared = await passSendGate(attempt, held);
  if ('settled' in cleared) return cleared;
  const answer = await callProvider(attempt, held, cleared.request, { possibleDuplicate });
  if ('settled' in answer) return answer;
  return settleAnswer(attempt, held, cleared.request, answer);
}
