import type { SmsCountryTable } from '../core/policy/sms-country-table';
import type { SenderConfig } from '../core/sender-config';

// Its own module, not provider-wiring.ts: the reclaimer imports that one whole (through import()) and never preloads.

/**
 * Starts loading SNS's provider and client modules when this sender can text through SNS (its bundle allows an SMS
 * country) or push (push applications are allowed, or any where none are configured): not awaited, so the load runs
 * while the cold start waits for SES's GetAccount instead of in the first text's invocation. A sender that can do
 * neither never loads them. A failed load is left to the first use, which tries again.
 */
export function preloadSnsWhenReachable(config: Pick<SenderConfig, 'delivery' | 'destinations'>, smsCountries: SmsCountryTable): void {
  if (config.delivery.mode !== 'aws') return;
  const texts = config.delivery.sms.provider === 'sns' && smsCountries.allowed.length > 0;
  const pushes = config.destinations.pushApplicationArns === undefined || config.destinations.pushApplicationArns.length > 0;
  if (texts || pushes) void Promise.all([import('../adapters/sns-provider'), import('../adapters/sns-client')]).catch(() => undefined);
}
