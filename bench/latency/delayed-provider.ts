import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { DeliveryEvidence } from '../../functions/core/policy/message-class';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { uniformOf } from '../../local/prng';
import { lognormalMs, type LatencyDistribution } from './latency-model';

/**
 * The latency of a message's `attempt`-th provider call, fixed by the seed, the message key and
 * the attempt alone: every sender waits exactly as long for the same call, whatever the order.
 */
export function providerLatencyMs(d: LatencyDistribution, seed: number, key: string, attempt: number): number {
  return lognormalMs(d, uniformOf(seed, 'provider', key, attempt, 'u1'), uniformOf(seed, 'provider', key, attempt, 'u2'));
}

/**
 * A provider whose answer takes a modelled round trip. The call reaches the inner provider at
 * once; if the caller's send timeout fires before the answer, the outcome is ambiguous and
 * `onLostAnswer` learns that the message did reach the provider (as a real timeout can).
 */
export class DelayedProvider implements DeliveryProvider {
  private readonly attempts = new Map<string, number>();
  /** Calls whose answer the send timeout cut off. */
  lostAnswers = 0;

  constructor(
    private readonly inner: DeliveryProvider,
    private readonly latency: LatencyDistribution,
    private readonly seed: number,
    private readonly onLostAnswer: (key: string) => void = () => undefined,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const attempt = (this.attempts.get(request.key) ?? 0) + 1;
    this.attempts.set(request.key, attempt);
    const outcome = await this.inner.send(request, signal);
    try {
      await sleep(providerLatencyMs(this.latency, this.seed, request.key, attempt), undefined, { signal });
    } catch {
      this.lostAnswers += 1;
      if (outcome.kind === 'sent') this.onLostAnswer(request.key);
      return { kind: 'ambiguous', reason: 'SendTimeout: no answer within the send timeout (modelled latency)' };
    }
    return outcome;
  }

  lookup(key: string): Promise<DeliveryEvidence> {
    return this.inner.lookup ? this.inner.lookup(key) : Promise.resolve('none');
  }
}
