import { InvalidEventError, RetryLaterError } from '../core/errors';
import { keyPrefix } from '../core/event/idempotency-key';
import { fallbackDecision } from '../core/fallback/fallback-decision';
import { fallbackEvent, unpackFallbackPlan } from '../core/fallback/fallback-plan';
import type { FallbackRequest } from '../core/fallback/fallback-request';
import { METRIC } from '../core/observability/metric-names';
import { DEFAULT_FALLBACK_POLICY } from '../core/policy/message-class';
import { planMessages } from '../delivery/message-plan';
import { deadLetter } from './dead-letter-record';
import { deliverPlans } from './deliver-plans';
import type { QueueRecord, RecordContext, RecordResult } from './record-context';

const NOTHING: RecordResult = { kind: 'settled', messages: [] };

/**
 * A fallback's request: reads the primary's row (strongly consistent), decides again on what it says now
 * (fallback-decision.ts), and sends the next channel as an ordinary message of the ledger, planned from the plan the
 * primary's row keeps, through its own channel's consent, limits, quiet hours and lane. Whoever asked (the sender's
 * refusal, the status function's bounce, the reclaimer's settling, a redelivered stream record, a delayed check),
 * the fallback's own claim makes it one message. A request whose primary's window has not ended comes back then.
 */
export async function processFallbackRequest(record: QueueRecord, request: FallbackRequest | 'invalid', ctx: RecordContext): Promise<RecordResult> {
  if (request === 'invalid') {
    await deadLetter(record, new InvalidEventError('SchemaViolation', 'a fallback request that is not one (notifierFallback 1 and a 64-character primaryKey)'), ctx);
    return { kind: 'dead-lettered', messages: [] };
  }
  const primary = await ctx.ledger.get(request.primaryKey);
  const key = keyPrefix(request.primaryKey);
  const messageClass = primary ? ctx.messageClasses.get(primary.messageClass) : undefined;
  if (!primary || !messageClass || primary.fallbackPlan === undefined) {
    ctx.metrics.count(METRIC.FallbackUnsendable, { reason: !primary ? 'PrimaryGone' : !messageClass ? 'UnknownMessageClass' : 'NoPlan' });
    ctx.log.warn('Fallback request without a primary to fall back from: nothing sent', { key, primary: primary ? 'no plan or class' : 'gone' });
    return NOTHING;
  }
  const decision = fallbackDecision(primary, messageClass.fallback ?? DEFAULT_FALLBACK_POLICY, ctx.clock());
  const dimensions = { channel: primary.channel, messageClass: messageClass.name };
  if (decision.kind === 'check-at') {
    // Early (a clock ahead, a window past SQS's 900 s): back once more at the window's end, a bound of its own.
    throw new RetryLaterError(`fallback of ${key} due at ${new Date(decision.atMs).toISOString()}`, { until: decision.atMs });
  }
  if (decision.kind === 'none') {
    ctx.metrics.count(METRIC.FallbackNotDue, { ...dimensions, reason: decision.why });
    ctx.log.info('Fallback not due: nothing sent', { key, why: decision.why });
    return NOTHING;
  }
  const unpacked = unpackFallbackPlan(primary.fallbackPlan);
  if (!unpacked.ok) {
    ctx.metrics.count(METRIC.FallbackUnsendable, { ...dimensions, reason: 'PlanUnreadable' });
    ctx.log.error('Fallback plan unreadable: nothing sent', { key, reason: unpacked.reason });
    return NOTHING;
  }
  const plans = planMessages(fallbackEvent(primary, unpacked.plan), messageClass, ctx.templates).map((plan) => ({ ...plan, replaces: primary.key }));
  const result = await deliverPlans(plans, record, ctx, `the fallback of ${key}`);
  for (const [index, message] of result.messages.entries()) {
    // Counted once: by the attempt whose own call sent it (a redelivered request finds it settled by an earlier one).
    if (!message.settled || message.settledBy !== 'provider-call' || message.state !== 'SENT') continue;
    const fallbackDimensions = { channel: plans[index]!.identity.channel, messageClass: messageClass.name };
    ctx.metrics.count(METRIC.FallbackSent, { ...fallbackDimensions, reason: decision.trigger });
    if (decision.trigger === 'no-evidence') ctx.metrics.count(METRIC.FallbackWithoutEvidence, fallbackDimensions);
    ctx.log.info('Fallback sent', { key: keyPrefix(plans[index]!.key), replaces: key, trigger: decision.trigger, channel: fallbackDimensions.channel });
  }
  return result;
}
