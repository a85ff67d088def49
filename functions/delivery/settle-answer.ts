import type { TransientCause } from '../core/provider/delivery-provider';
import { METRIC, type MetricName } from '../core/observability/metric-names';
import type { SendRequest } from '../core/templates/rendered-message';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import { finish, release } from './held-claim-writes';
import type { ProviderAnswer } from './provider-call';
import { recordRefusedConsent } from './recipient-consent';
import { settleOwnAmbiguity } from './settle-ambiguity';
import { suppressMessage } from './suppress-message';

/**
 * The settle phase for this attempt's own call: accepted (SENT), refused for good (FAILED; SUPPRESSED for a
 * bulk message the recipient withdrew consent for, recorded for the next one), refused for now
 * (the claim handed back, the record retried with the same key), or unknown (the class's policy, see
 * settle-ambiguity.ts).
 */
export async function settleAnswer(attempt: DeliveryAttempt, held: HeldClaim, request: SendRequest, { outcome }: ProviderAnswer): Promise<MessageResult> {
  const { ctx } = attempt;
  const { claim, lastAmbiguousAt } = held;
  switch (outcome.kind) {
    case 'sent':
      count(attempt, METRIC.Sent);
      return finish(attempt, claim, {
        state: 'SENT',
        providerMessageId: outcome.providerMessageId,
        // Only SNS SMS delivery logs look a row up by the provider's id; nothing else is indexed (End User
        // Messaging's events carry the key, so its texts cost no index write).
        ...(request.message.channel === 'sms' && !ctx.providers.sms.keyedEvidence ? { smsMessageId: outcome.providerMessageId } : {}),
      }, 'provider-call');
    case 'permanent':
      if (outcome.consent) {
        // Whatever the class, the address is on record as opted out / unsubscribed for the next bulk message.
        await recordRefusedConsent(attempt, request, outcome.consent);
        // A bulk message the provider refused for consent is a recipient's rule, never a failure; a code or an
        // order update that cannot reach an opted-out number is one (FAILED, the reason names it).
        if (attempt.plan.messageClass.bulk) {
          return suppressMessage(attempt, held, { reason: outcome.consent, detail: `${outcome.consent}: the provider refused the send (${outcome.reason})` });
        }
      }
      count(attempt, METRIC.PermanentFailure);
      ctx.log.warn('Provider rejected the message permanently', { ...logContext(attempt), reason: outcome.reason });
      return finish(attempt, claim, { state: 'FAILED', reason: outcome.reason }, 'provider-call');
    case 'transient': {
      count(attempt, METRIC.TransientRetry);
      const causeMetric = TRANSIENT_CAUSE_METRIC[outcome.cause];
      if (causeMetric) count(attempt, causeMetric);
      // The account is past its rate: a bulk lane's governor gives way to the urgent lane's sends.
      if (outcome.cause === 'throttled') ctx.governor?.throttled(request.message.channel);
      ctx.log.warn('Provider refused for now; will retry with the same key', { ...logContext(attempt), cause: outcome.cause, reason: outcome.reason });
      // Keeps the row's earlier ambiguity, if any: this attempt proves nothing about that one.
      await release(attempt, claim, { reason: 'transient', detail: outcome.reason, lastAmbiguousAt });
      return { settled: false, why: 'transient-failure', cause: outcome.cause };
    }
    case 'ambiguous':
      // This attempt is now the latest that may have reached the provider: its own evidence wait starts now.
      return settleOwnAmbiguity(attempt, held, outcome);
  }
}

/** The metric, beside `TransientRetry`, that names why a provider certainly did not send. */
const TRANSIENT_CAUSE_METRIC: Readonly<Record<TransientCause, MetricName | undefined>> = {
  throttled: METRIC.ProviderThrottled,
  'quota-exhausted': METRIC.ProviderQuotaExhausted,
  configuration: METRIC.ProviderConfigurationFault,
  unavailable: undefined,
  unrecognised: METRIC.ProviderErrorUnrecognised,
};
