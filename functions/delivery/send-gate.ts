import { lifetimeLeft } from '../core/policy/message-lifetime';
import { METRIC } from '../core/observability/metric-names';
import { DEFAULT_QUIET_HOURS_TIME_ZONE, quietHoursDeferral } from '../core/policy/quiet-hours-deferral';
import type { SendRequest } from '../core/templates/rendered-message';
import { checkDestination, countLimits } from './abuse-guard';
import { checkConsent } from './recipient-consent';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish, release } from './held-claim-writes';
import { endUndelivered } from './end-undelivered';
import { suppressMessage } from './suppress-message';

/** Past the gate: the request in hand, which the send takes (never the plan's union again). */
export interface ClearedToSend {
  readonly request: SendRequest;
}

/**
 * What may stop a held message before its send, in order: a message that can never be sent (no address,
 * no template: FAILED); a lifetime that ran out, counted from the event (a code push older than its code:
 * FAILED `LifetimeExpired`, message-lifetime.ts; what is left of it rides on the request); the destination rules (SUPPRESSED, abuse-guard.ts); a recipient who withdrew
 * consent for a bulk message (SUPPRESSED Unsubscribed / OptedOut, recipient-consent.ts); its class's quiet
 * hours in the recipient's time (the claim handed back unsent, the record deferred to the window's end);
 * the class's limits (SUPPRESSED), counted last so that no earlier step's message takes a slot. A store
 * that cannot answer (limits, consent) hands the claim back unsent and the record backs off. A new rule
 * that keeps a message from the provider without a call lands here.
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
  const lifetime = lifetimeLeft({
    message: prepared.request.message,
    messageClass: plan.messageClass,
    occurredAtMs: Date.parse(plan.occurredAt),
    nowMs: ctx.clock(),
    smsTimeToLive: ctx.providers.sms.timeToLive === true,
  });
  if (lifetime.kind === 'expired') {
    const reason = `LifetimeExpired: the event is ${lifetime.ageSeconds}s old, its ${prepared.request.message.channel} lived ${lifetime.lifetimeSeconds}s`;
    return endUndelivered(attempt, held, { reason, metric: METRIC.LifetimeExpired, log: 'Lifetime ran out before the send, counted from the event; never sent' });
  }
  const request = lifetime.kind === 'left' ? { ...prepared.request, lifetimeLeftSeconds: lifetime.seconds } : prepared.request;

  const destination = checkDestination(request, ctx);
  if (destination.kind === 'suppress') return suppressMessage(attempt, held, destination.suppression);

  const consent = await checkConsent(attempt, request);
  if (consent.kind === 'suppress') return suppressMessage(attempt, held, consent.suppression);
  if (consent.kind === 'store-failed') {
    const name = consent.error instanceof Error ? consent.error.name : 'unknown';
    count(attempt, METRIC.ConsentStoreError);
    ctx.log.error('Consent store failed; the claim is handed back unsent and the record backs off', { ...logContext(attempt), error: name });
    await release(attempt, claim, { reason: 'transient', detail: `ConsentStoreUnavailable: ${name}`, lastAmbiguousAt });
    return { settled: false, why: 'consent-store-unavailable' };
  }

  const where = { countries: ctx.destinations?.sms, defaultTimeZone: ctx.defaultTimeZone ?? DEFAULT_QUIET_HOURS_TIME_ZONE };
  const quiet = quietHoursDeferral(plan.messageClass, request.message, where, ctx.clock());
  if (quiet) {
    const until = new Date(quiet.untilMs).toISOString();
    const zone = quiet.zones.zones.length === 1 ? quiet.zones.zones[0] : `${quiet.zones.zones.length} zones of the number's country`;
    count(attempt, METRIC.QuietHoursDeferred);
    ctx.log.info('Inside quiet hours in the recipient\'s time; deferred, claim handed back unsent', { ...logContext(attempt), until, zoneSource: quiet.zones.source });
    await release(attempt, claim, { reason: 'transient', detail: `QuietHours: deferred until ${until} (${zone}, ${quiet.zones.source})`, lastAmbiguousAt });
    return { settled: false, why: 'quiet-hours', untilMs: quiet.untilMs };
  }

  const verdict = await countLimits(plan, request, countAtMs, ctx);
  switch (verdict.kind) {
    case 'send':
      return { request };
    case 'suppress':
      return suppressMessage(attempt, held, verdict.suppression);
    case 'store-failed': {
      const name = verdict.error instanceof Error ? verdict.error.name : 'unknown';
      count(attempt, METRIC.LimitStoreError);
      ctx.log.error('Limit store failed; the claim is handed back unsent and the record backs off', { ...logContext(attempt), error: name });
      await release(attempt, claim, { reason: 'transient', detail: `LimitStoreUnavailable: ${name}`, lastAmbiguousAt });
      return { settled: false, why: 'limit-store-unavailable' };
    }
  }
}
