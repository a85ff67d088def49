import { onFirstUse } from '../adapters/sqs-on-demand';
import type { DeliveryProvider, DeliveryProviders } from '../core/provider/delivery-provider';
import type { Channel } from '../core/event/idempotency-key';
import type { LogPort } from '../core/observability/log-port';
import type { SendRateGovernor } from '../core/policy/send-rate-governor';
import { smsKeyedEvidence, type SenderConfig } from '../core/sender-config';

/** Providers and a send-rate gate whose SES and SNS edge loads on the first call. */
export interface OnDemandSending {
  readonly providers: DeliveryProviders;
  readonly governor: Pick<SendRateGovernor, 'acquire' | 'throttled'>;
}

/**
 * The sending edge of a function that seldom sends: the reclaimer, whose runs mostly find no stale
 * claim. The SES and SNS clients, the SES account read and the send-rate governor load on the first
 * send or look-up, not at cold start (provider-wiring.ts is reached only through `import()`).
 */
export function onDemandSending(config: SenderConfig, log: LogPort): OnDemandSending {
  const edge = onFirstUse(async () => {
    const wiring = await import('./provider-wiring');
    const clients = wiring.createLambdaSendClients(config);
    return {
      providers: wiring.createProviders(config, clients),
      governor: await wiring.createSendRateGovernor(config, clients?.ses, log),
    };
  });
  const provider = (channel: Channel): DeliveryProvider => ({
    // Known from the configuration without loading the edge: End User Messaging's events carry the key, and its texts have a time to live.
    ...(channel === 'sms' && smsKeyedEvidence(config) ? { keyedEvidence: true, timeToLive: true } : {}),
    send: async (request, signal) => (await edge()).providers[channel].send(request, signal),
    // A provider without a look-up gives no evidence, exactly as when it is not asked.
    lookup: async (key) => {
      const loaded = (await edge()).providers[channel];
      return loaded.lookup ? loaded.lookup(key) : 'none';
    },
  });
  return {
    providers: { email: provider('email'), sms: provider('sms'), push: provider('push') },
    governor: {
      acquire: async (channel, latestStartMs) => (await edge()).governor?.acquire(channel, latestStartMs) ?? true,
      // Only a send the loaded edge made can be throttled, so the edge is there by then.
      throttled: (channel) => void edge().then((loaded) => loaded.governor?.throttled(channel), () => undefined),
    },
  };
}
