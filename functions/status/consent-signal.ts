import type { ConsentStore } from '../core/policy/consent';
import type { DeliveryStatusStore } from '../core/provider/delivery-status';
import { keyPrefix } from '../core/event/idempotency-key';
import type { LogPort } from '../core/observability/log-port';
import { METRIC } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import type { ConsentSignal } from './status-event';

/** What recording a consent signal needs. */
export interface ConsentSignalDependencies {
  readonly store: DeliveryStatusStore;
  readonly consent?: ConsentStore;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly clock: () => number;
}

/**
 * Records what a provider event says about the recipient of a bulk row: SES's new contact-list preferences
 * replace the address's e-mail record; a refusal after acceptance (an unsubscribed contact's bounce, an
 * opted-out number's log line) adds to it and turns the row SENT -> SUPPRESSED with the reason (counted
 * once: only the write that changes the row counts). Rows of other classes carry no consent key and are left
 * as they are. A ledger error is thrown: the invocation fails and Lambda's retry applies the signal again.
 *
 * @param at when the provider says it happened (epoch ms): a later change already recorded wins.
 */
export async function applyConsentSignal(key: string, signal: ConsentSignal, at: number, deps: ConsentSignalDependencies): Promise<void> {
  if (!deps.consent) return;
  const consentKey = await deps.store.consentKeyOfRow(key);
  if (!consentKey) return;
  if (signal.kind === 'preferences') {
    await deps.consent.replace(consentKey, { all: signal.all, topics: signal.topicsOut, at, source: 'ses-subscription' });
    deps.log.info('Contact-list preferences recorded', { key: keyPrefix(key), unsubscribedAll: signal.all, topicsOut: signal.topicsOut });
    return;
  }
  const source = signal.reason === 'OptedOut' ? 'sms-delivery-log' : 'ses-bounce';
  await deps.consent.withdraw(consentKey, signal.reason === 'OptedOut' ? { all: true, topics: [] } : { all: false, topics: signal.topic ? [signal.topic] : [] }, at, source);
  const detail =
    signal.reason === 'OptedOut'
      ? 'OptedOut: the provider accepted the text and did not deliver it: the number is opted out (sms-delivery-log)'
      : `Unsubscribed: SES accepted the e-mail and bounced it: the contact unsubscribed from topic ${signal.topic ?? '?'} (ses-bounce)`;
  if (await deps.store.suppressAfterAcceptance(key, { reason: signal.reason, detail }, deps.clock())) {
    deps.metrics.count(METRIC[signal.reason]);
    deps.log.warn('Message refused for consent after the provider accepted it: SUPPRESSED', { key: keyPrefix(key), reason: signal.reason });
  }
}
