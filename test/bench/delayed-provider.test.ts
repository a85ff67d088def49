import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { DelayedProvider, providerLatencyMs } from '../../bench/latency/delayed-provider';
import type { LatencyDistribution } from '../../bench/latency/latency-model';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';

const SPREAD: LatencyDistribution = { label: 'test', medianMs: 100, p99Ms: 800, source: 'test' };
const FIXED_2S: LatencyDistribution = { label: 'test', medianMs: 2000, p99Ms: 2000, source: 'test' };

function recordingProvider(): DeliveryProvider & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async send(request: ProviderRequest): Promise<DeliveryOutcome> {
      calls.push(request.key);
      return { kind: 'sent', providerMessageId: `pm-${calls.length}` };
    },
  };
}

const request = (key: string) => ({ key }) as ProviderRequest;
const never = () => new AbortController().signal;

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await f();
  return { value, ms: performance.now() - started };
}

describe('the delayed provider', () => {
  it('waits the same for the same message and attempt in any run, and draws anew for a retry', async () => {
    const key = 'k'.repeat(64);
    expect(providerLatencyMs(SPREAD, 7, key, 1)).toBe(providerLatencyMs(SPREAD, 7, key, 1));
    expect(providerLatencyMs(SPREAD, 7, key, 2)).not.toBe(providerLatencyMs(SPREAD, 7, key, 1));
    expect(providerLatencyMs(SPREAD, 8, key, 1)).not.toBe(providerLatencyMs(SPREAD, 7, key, 1));

    // A seed whose first two attempts differ by more than the timing tolerance below (generous: the machine is shared).
    const seed = Array.from({ length: 500 }, (_, s) => s).find(
      (s) => Math.abs(providerLatencyMs(SPREAD, s, key, 1) - providerLatencyMs(SPREAD, s, key, 2)) > 300 &&
        Math.max(providerLatencyMs(SPREAD, s, key, 1), providerLatencyMs(SPREAD, s, key, 2)) < 700,
    )!;
    const provider = new DelayedProvider(recordingProvider(), SPREAD, seed);
    const first = await timed(() => provider.send(request(key), never()));
    const second = await timed(() => provider.send(request(key), never()));
    expect(first.value.kind).toBe('sent');
    expect(first.ms).toBeGreaterThanOrEqual(providerLatencyMs(SPREAD, seed, key, 1) - 1);
    expect(first.ms).toBeLessThan(providerLatencyMs(SPREAD, seed, key, 1) + 250);
    expect(second.ms).toBeGreaterThanOrEqual(providerLatencyMs(SPREAD, seed, key, 2) - 1);
    expect(second.ms).toBeLessThan(providerLatencyMs(SPREAD, seed, key, 2) + 250);
  });

  it('answers ambiguous when the send timeout cuts the wait, and reports that the message arrived', async () => {
    const inner = recordingProvider();
    const reached: string[] = [];
    const provider = new DelayedProvider(inner, FIXED_2S, 1, (key) => reached.push(key));
    const { value, ms } = await timed(() => provider.send(request('late'), AbortSignal.timeout(20)));
    expect(value.kind).toBe('ambiguous');
    expect(ms).toBeLessThan(1000);
    expect(inner.calls).toEqual(['late']);
    expect(reached).toEqual(['late']);
    expect(provider.lostAnswers).toBe(1);
  });
});
