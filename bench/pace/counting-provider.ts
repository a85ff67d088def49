import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { DeliveryEvidence } from '../../functions/core/policy/message-class';
import type { Channel } from '../../functions/core/event/idempotency-key';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';

/** Provider requests of one channel by what the provider answered. */
export interface ProviderRequestCounts {
  requests: number;
  sent: number;
  /** Refused over the sending rate. */
  throttled: number;
  /** Refused over the daily quota. */
  quotaExhausted: number;
  permanent: number;
  ambiguous: number;
  otherTransient: number;
}

export type RequestCountsByChannel = Partial<Record<Channel, ProviderRequestCounts>>;

const empty = (): ProviderRequestCounts => ({ requests: 0, sent: 0, throttled: 0, quotaExhausted: 0, permanent: 0, ambiguous: 0, otherTransient: 0 });

/**
 * Counts every call that left the sender for a provider, by channel and answer. The local servers
 * count only what they accepted; the refusals are counted here, at the port, from the answer the
 * adapter classified (a throttling error name, never a guess from the HTTP status).
 */
export class CountingProvider implements DeliveryProvider {
  /** The inner provider's look-up, uncounted (not a send). */
  readonly lookup?: (key: string) => Promise<DeliveryEvidence>;

  constructor(
    private readonly inner: DeliveryProvider,
    private readonly counts: RequestCountsByChannel,
    /** Receives each accepted send's round trip in ms (the provider's own latency, as the sender saw it). @default not kept */
    private readonly sentLatenciesMs?: number[],
  ) {
    if (inner.lookup) this.lookup = (key) => inner.lookup?.(key) ?? Promise.resolve('none');
  }

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const counts = (this.counts[request.message.channel] ??= empty());
    counts.requests += 1;
    const started = performance.now();
    const outcome = await this.inner.send(request, signal);
    if (outcome.kind === 'sent') {
      counts.sent += 1;
      this.sentLatenciesMs?.push(performance.now() - started);
    }
    else if (outcome.kind === 'permanent') counts.permanent += 1;
    else if (outcome.kind === 'ambiguous') counts.ambiguous += 1;
    else if (outcome.cause === 'throttled') counts.throttled += 1;
    else if (outcome.cause === 'quota-exhausted') counts.quotaExhausted += 1;
    else counts.otherTransient += 1;
    return outcome;
  }
}
