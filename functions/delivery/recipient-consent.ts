import { consentKeyOf, consentSuppression, unsubscribeTopic, type ConsentReason } from '../core/policy/consent';
import { METRIC } from '../core/observability/metric-names';
import type { SendRequest } from '../core/templates/rendered-message';
import type { Suppression } from '../core/policy/suppression';
import { count, type DeliveryAttempt, logContext } from './delivery-attempt';

// What this stack knows of a recipient's consent: read before a bulk message is sent (the send gate's
// consent step), written when a provider refuses a send for it.

/** What the consent check decided for a message about to be sent. */
export type ConsentVerdict =
  | { readonly kind: 'send' }
  | { readonly kind: 'suppress'; readonly suppression: Suppression & { readonly reason: ConsentReason } }
  /** The consent store failed: neither send unchecked nor suppress. */
  | { readonly kind: 'store-failed'; readonly error: unknown };

/**
 * The consent step of the send gate: a bulk message whose recipient unsubscribed (e-mail, from its topic
 * or from all) or opted out (SMS) is never handed to the provider. One strongly consistent read of the
 * destination's consent record; a non-bulk class (otp, transactional) and push are never checked.
 */
export async function checkConsent(attempt: DeliveryAttempt, request: SendRequest): Promise<ConsentVerdict> {
  const { ctx, plan } = attempt;
  const store = ctx.consent;
  const key = plan.messageClass.bulk ? consentKeyOf(request.message) : undefined;
  if (!store || !key) return { kind: 'send' };
  let record;
  try {
    record = await store.read(key);
  } catch (error) {
    return { kind: 'store-failed', error };
  }
  const suppression = consentSuppression(request.message.channel, unsubscribeTopic(ctx.topicPrefix ?? '', plan.messageClass.name), record);
  if (suppression) return { kind: 'suppress', suppression };
  if (request.message.channel === 'sms' && (await optedOutAtProvider(attempt, request, key))) {
    return { kind: 'suppress', suppression: { reason: 'OptedOut', detail: 'OptedOut: the provider holds the number as opted out (provider-check)' } };
  }
  return { kind: 'send' };
}

/**
 * Asks the provider, where it can be asked cheaply, whether a number the stack has no opt-out on record for
 * opted out (replied STOP since its last text); a yes is recorded, so the next bulk text needs no question.
 * A failed question sends: the provider still refuses an opted-out number, and its log then tells the stack.
 */
async function optedOutAtProvider(attempt: DeliveryAttempt, request: SendRequest, key: string): Promise<boolean> {
  const { ctx } = attempt;
  const ask = ctx.providers.sms.optedOut?.bind(ctx.providers.sms);
  if (!ask) return false;
  let optedOut: boolean;
  try {
    optedOut = await ask(request.message.to, AbortSignal.timeout(ctx.sendTimeoutMs));
  } catch (error) {
    count(attempt, METRIC.OptOutCheckFailed);
    ctx.log.warn('Could not ask the provider whether the number opted out; sending (the provider refuses an opted-out number)', {
      ...logContext(attempt),
      error: error instanceof Error ? error.name : 'unknown',
    });
    return false;
  }
  if (optedOut) {
    try {
      await ctx.consent?.withdraw(key, { all: true, topics: [] }, ctx.clock(), 'provider-check');
    } catch {
      count(attempt, METRIC.ConsentNotRecorded);
    }
  }
  return optedOut;
}

/**
 * Records that a provider refused this attempt's send because the recipient withdrew consent, so that the
 * next bulk message to the address is stopped by the gate without a call: an opted-out number for every
 * text, an unsubscribed contact for the message's topic. Best effort: the message is settled whatever
 * this write does; a failure is counted and logged (the provider will refuse the next send again).
 */
export async function recordRefusedConsent(attempt: DeliveryAttempt, request: SendRequest, reason: ConsentReason): Promise<void> {
  const { ctx, plan } = attempt;
  const key = consentKeyOf(request.message);
  if (!ctx.consent || !key) return;
  const withdrawn =
    reason === 'OptedOut' ? { all: true, topics: [] } : { all: false, topics: [unsubscribeTopic(ctx.topicPrefix ?? '', plan.messageClass.name)] };
  try {
    await ctx.consent.withdraw(key, withdrawn, ctx.clock(), 'provider-refusal');
  } catch (error) {
    count(attempt, METRIC.ConsentNotRecorded);
    ctx.log.warn('Could not record the refused consent; the provider will refuse the next send again', {
      ...logContext(attempt),
      reason,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}
