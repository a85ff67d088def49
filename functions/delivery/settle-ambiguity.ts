import { isAmbiguityLoop, nextAmbiguityStreak } from '../core/ledger/ambiguity-loop';
import { gatherEvidence, type RowEvidenceFields } from '../core/provider/delivery-evidence';
import type { DeliveryOutcome } from '../core/provider/delivery-provider';
import type { Claim, LedgerRow } from '../core/ledger/ledger-record';
import { resolveAmbiguity } from '../core/policy/message-class';
import { METRIC } from '../core/observability/metric-names';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish, release } from './held-claim-writes';

/**
 * What settling an earlier attempt's ambiguity leaves to the send: go on, and whether a send now may duplicate one that
 * went out. Counted (`ResentAfterAmbiguity`) only where the provider is called (provider-call.ts): the send gate may
 * still end or defer the message without a call.
 */
export interface SendAfterAmbiguity {
  readonly possibleDuplicate: boolean;
}

/**
 * An earlier attempt may have reached the provider: its evidence wait runs from `lastAmbiguousAt`,
 * and the row, written since that call, may hold delivery evidence of it. A {@link SendAfterAmbiguity}: send now.
 */
export async function resolvePreviousAmbiguity(attempt: DeliveryAttempt, held: HeldClaim & { readonly lastAmbiguousAt: number }): Promise<MessageResult | SendAfterAmbiguity> {
  const { claim, lastAmbiguousAt, previous } = held;
  const next = await settleAmbiguity(attempt, claim, {
    since: lastAmbiguousAt,
    rowEvidence: previous,
    known: previous,
    unknownReason: 'OutcomeUnknown: an earlier attempt may have sent it; class policy is give-up',
  });
  switch (next.action) {
    case 'settled':
      return next.result;
    case 'wait':
      await release(attempt, claim, { reason: 'ambiguous', detail: 'waiting for delivery evidence', lastAmbiguousAt });
      return { settled: false, why: 'waiting-for-evidence' };
    case 'send':
      return { possibleDuplicate: next.possibleDuplicate };
  }
}

/**
 * This attempt's own call may have reached the provider: its evidence wait starts now. Evidence and the class
 * policy settle it first; what they would send again or wait on ends instead when the call is the last of a
 * loop, the same unanswered failure on consecutive attempts (ambiguity-loop.ts).
 */
export async function settleOwnAmbiguity(
  attempt: DeliveryAttempt,
  { claim, previous }: HeldClaim,
  { reason, unanswered }: Extract<DeliveryOutcome, { kind: 'ambiguous' }>,
): Promise<MessageResult> {
  const { ctx } = attempt;
  count(attempt, METRIC.AmbiguousOutcome);
  ctx.log.warn('Provider outcome unknown', { ...logContext(attempt), reason, policy: attempt.plan.messageClass.onAmbiguous });
  const lastAmbiguousAt = ctx.clock();
  const next = await settleAmbiguity(attempt, claim, {
    since: lastAmbiguousAt,
    // The row was read before this call: whatever evidence it holds is of an earlier one.
    rowEvidence: undefined,
    known: previous,
    unknownReason: `OutcomeUnknown: ${reason}`,
  });
  if (next.action === 'settled') return next.result;
  const streak = nextAmbiguityStreak(previous?.ambiguityStreak, unanswered);
  if (isAmbiguityLoop(streak)) {
    count(attempt, METRIC.AmbiguityLoopStopped);
    ctx.log.error('Ambiguity loop: the same unanswered failure again, the message ends UNKNOWN', { ...logContext(attempt), ...streak });
    return finish(attempt, claim, { state: 'UNKNOWN', reason: `AmbiguityLoop: ${streak.calls} calls in a row unanswered, ${streak.unanswered}; last: ${reason}` }, 'policy');
  }
  // 'send' or 'wait': hand the claim back marked ambiguous; the next delivery applies the policy.
  await release(attempt, claim, { reason: 'ambiguous', detail: reason, lastAmbiguousAt, ambiguityStreak: streak ?? 'reset' });
  return { settled: false, why: 'ambiguous-outcome' };
}

/** A provider call that may have reached the provider, as {@link settleAmbiguity} weighs it. */
interface Ambiguity {
  /** When the call was made (ledger clock): the class's evidence wait runs from here. */
  readonly since: number;
  /** A row written after the call, whose delivery status may prove what it did. */
  readonly rowEvidence: RowEvidenceFields | undefined;
  /** The row as this attempt found it: the provider's id, when the status stream recorded one for this key. */
  readonly known: Pick<LedgerRow, 'providerMessageId'> | undefined;
  /** The UNKNOWN reason, should the class give up. */
  readonly unknownReason: string;
}

type AmbiguityNext =
  | { readonly action: 'settled'; readonly result: MessageResult }
  | { readonly action: 'wait' }
  | { readonly action: 'send'; readonly possibleDuplicate: boolean };

/**
 * The one place a call that may have reached the provider meets the message class's policy.
 * The two answers that settle the message are recorded here: SENT on evidence (under the provider's
 * own id when the row carries one, else a placeholder) and UNKNOWN (give-up). Waiting and sending
 * again are handed back, since what follows differs for an earlier attempt's call and this one's.
 */
async function settleAmbiguity(attempt: DeliveryAttempt, claim: Claim, ambiguity: Ambiguity): Promise<AmbiguityNext> {
  const { ctx, plan } = attempt;
  const messageClass = plan.messageClass;
  // The row's own delivery evidence is free and settles any class; only `lookup` asks the provider.
  const evidence = await gatherEvidence(ambiguity.rowEvidence, messageClass.onAmbiguous === 'lookup' ? lookup(attempt) : undefined);
  const keyedEvidence = ctx.providers[plan.identity.channel].keyedEvidence === true;
  const resolution = resolveAmbiguity(messageClass, evidence, ctx.clock() - ambiguity.since, { keyedEvidence });
  // The gap left: the class waited for evidence that never came (an event the provider never published, or lost).
  if ((resolution.action === 'send' || resolution.action === 'give-up') && resolution.afterWait) count(attempt, METRIC.SettledByWait);
  switch (resolution.action) {
    case 'mark-sent':
      count(attempt, METRIC.SentByEvidence);
      return {
        action: 'settled',
        result: await finish(attempt, claim, {
          state: 'SENT',
          // Not indexed (no smsMessageId): no delivery log carries a placeholder, nor SES's id.
          providerMessageId: ambiguity.known?.providerMessageId ?? `evidence:${plan.key}`,
        }, 'evidence'),
      };
    case 'give-up':
      count(attempt, METRIC.GaveUpAfterAmbiguity);
      return { action: 'settled', result: await finish(attempt, claim, { state: 'UNKNOWN', reason: ambiguity.unknownReason }, 'policy') };
    case 'wait':
      return { action: 'wait' };
    case 'send':
      return { action: 'send', possibleDuplicate: resolution.possibleDuplicate };
  }
}

function lookup(attempt: DeliveryAttempt) {
  const provider = attempt.ctx.providers[attempt.plan.identity.channel];
  return provider.lookup ? () => provider.lookup!(attempt.plan.key) : undefined;
}
