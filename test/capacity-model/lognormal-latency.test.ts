import { describe, expect, it } from 'vitest';
import {
  expectedMaximum,
  lognormalMean,
  lognormalParameters,
  lognormalVariance,
  standardNormalCdf,
  sumOfLognormals,
} from '../../lib/capacity-model/lognormal-latency';
import { mulberry32 } from '../../local/prng';

const PROVIDER = lognormalParameters({ medianMs: 60, p99Ms: 400 });
const LEDGER = lognormalParameters({ medianMs: 5, p99Ms: 25 });

/** Draws from a lognormal by Box-Muller, seeded. */
function draws(d: { mu: number; sigma: number }, n: number, seed: number): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => Math.exp(d.mu + d.sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
}

describe('lognormal latency arithmetic', () => {
  it('takes mu = ln(median) and sigma = ln(p99 / median) / 2.326, and refuses a p99 below the median naming both', () => {
    expect(PROVIDER.mu).toBeCloseTo(Math.log(60), 9);
    expect(PROVIDER.sigma).toBeCloseTo(Math.log(400 / 60) / 2.326, 9);
    expect(() => lognormalParameters({ label: 'odd', medianMs: 50, p99Ms: 20 })).toThrow('odd: needs 0 < median <= p99 (median 50 ms, p99 20 ms)');
  });

  it('gives the normal CDF to 1e-6 at known points', () => {
    expect(standardNormalCdf(0)).toBeCloseTo(0.5, 6);
    expect(standardNormalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(standardNormalCdf(-2.326348)).toBeCloseTo(0.01, 6);
  });

  it('has the mean and variance of 200,000 seeded draws (within 1% and 3%)', () => {
    const sample = draws(PROVIDER, 200_000, 7);
    const mean = sample.reduce((a, b) => a + b, 0) / sample.length;
    const variance = sample.reduce((a, b) => a + (b - mean) ** 2, 0) / sample.length;
    expect(Math.abs(mean / lognormalMean(PROVIDER) - 1)).toBeLessThan(0.01);
    expect(Math.abs(variance / lognormalVariance(PROVIDER) - 1)).toBeLessThan(0.03);
  });

  it('the slowest of one draw is the mean; of k draws, what k seeded draws give on average (within 2%)', () => {
    expect(expectedMaximum(PROVIDER, 1) / lognormalMean(PROVIDER)).toBeCloseTo(1, 4);
    for (const k of [4, 10, 50]) {
      const rounds = 20_000;
      const sample = draws(PROVIDER, rounds * k, k);
      let total = 0;
      for (let r = 0; r < rounds; r += 1) total += Math.max(...sample.slice(r * k, (r + 1) * k));
      expect(Math.abs(expectedMaximum(PROVIDER, k) / (total / rounds) - 1), `k = ${k}`).toBeLessThan(0.02);
    }
  });

  it('a fixed latency is its own slowest draw; k must be a whole number >= 1', () => {
    expect(expectedMaximum({ mu: Math.log(40), sigma: 0 }, 9)).toBeCloseTo(40, 9);
    expect(() => expectedMaximum(PROVIDER, 0)).toThrow('needs a whole k >= 1 (got 0)');
    expect(() => expectedMaximum(PROVIDER, 2.5)).toThrow('(got 2.5)');
  });

  it('a sum of lognormals keeps the sum of means and of variances (plus a constant in the mean)', () => {
    const sum = sumOfLognormals([PROVIDER, LEDGER, LEDGER], 3);
    expect(lognormalMean(sum)).toBeCloseTo(lognormalMean(PROVIDER) + 2 * lognormalMean(LEDGER) + 3, 6);
    expect(lognormalVariance(sum)).toBeCloseTo(lognormalVariance(PROVIDER) + 2 * lognormalVariance(LEDGER), 3);
  });
});
