import { describe, expect, it } from 'vitest';
import { lognormalMs, lognormalParameters, PROVIDER_LATENCY, type LatencyDistribution } from '../../bench/latency/latency-model';
import { mulberry32 } from '../../local/prng';
import { quantile } from '../../local/stats';

describe('the lognormal latency model', () => {
  it('draws the median and p99 it was given (20,000 seeded draws, median 60 ms, p99 400 ms)', () => {
    const random = mulberry32(11);
    const draws = Array.from({ length: 20_000 }, () => lognormalMs(PROVIDER_LATENCY, random(), random()));
    expect(quantile(draws, 0.5)).toBeGreaterThan(60 * 0.95);
    expect(quantile(draws, 0.5)).toBeLessThan(60 * 1.05);
    expect(quantile(draws, 0.99)).toBeGreaterThan(400 * 0.9);
    expect(quantile(draws, 0.99)).toBeLessThan(400 * 1.1);
  });

  it('takes sigma as ln(p99 / median) / 2.326', () => {
    expect(lognormalParameters(PROVIDER_LATENCY).sigma).toBeCloseTo(Math.log(400 / 60) / 2.326, 6);
    expect(lognormalParameters(PROVIDER_LATENCY).mu).toBeCloseTo(Math.log(60), 6);
  });

  it('gives exactly the median when the p99 equals it (a fixed latency)', () => {
    const fixed: LatencyDistribution = { label: 'fixed', medianMs: 40, p99Ms: 40, source: 'test' };
    expect(lognormalMs(fixed, 0.99, 0.3)).toBeCloseTo(40, 9);
  });

  it('fails if the p99 is below the median, naming both', () => {
    expect(() => lognormalParameters({ label: 'odd', medianMs: 50, p99Ms: 20, source: 'test' })).toThrow(/odd.*median 50 ms, p99 20 ms/);
  });
});
