/**
 * Round-trip latencies as lognormal distributions given by their median and 99th percentile, and the
 * few figures of them the capacity model needs: the mean, and the expected slowest of k independent
 * draws (an invocation lasts until its slowest message is done). Pure arithmetic, hand-written because
 * it is twenty lines and the model must be importable at synth without a numerics dependency.
 */

/** A latency by its median and 99th percentile (equal for a fixed latency). */
export interface LatencyPercentiles {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** What it is of, for error messages. @default 'latency' */
  readonly label?: string;
}

/** The parameters of the underlying normal. */
export interface LognormalParameters {
  readonly mu: number;
  readonly sigma: number;
}

/** The standard normal's 99th percentile. */
export const Z_99 = 2.326;

/** mu and sigma of the underlying normal: mu = ln(median), sigma = ln(p99 / median) / 2.326. */
export function lognormalParameters(d: LatencyPercentiles): LognormalParameters {
  if (!(d.medianMs > 0) || !(d.p99Ms >= d.medianMs)) {
    throw new RangeError(`${d.label ?? 'latency'}: needs 0 < median <= p99 (median ${d.medianMs} ms, p99 ${d.p99Ms} ms)`);
  }
  return { mu: Math.log(d.medianMs), sigma: Math.log(d.p99Ms / d.medianMs) / Z_99 };
}

/** The mean: exp(mu + sigma² / 2). */
export function lognormalMean({ mu, sigma }: LognormalParameters): number {
  return Math.exp(mu + (sigma * sigma) / 2);
}

/** The variance: (exp(sigma²) - 1) exp(2 mu + sigma²). */
export function lognormalVariance({ mu, sigma }: LognormalParameters): number {
  return (Math.exp(sigma * sigma) - 1) * Math.exp(2 * mu + sigma * sigma);
}

/**
 * The lognormal with the mean and variance of `parts` (independent lognormals) added up, plus `constantMs`:
 * Fenton and Wilkinson's moment match, close for sums whose largest part dominates (a provider call and
 * a few millisecond-scale ledger requests).
 */
export function sumOfLognormals(parts: readonly LognormalParameters[], constantMs = 0): LognormalParameters {
  const mean = parts.reduce((n, p) => n + lognormalMean(p), 0) + constantMs;
  const variance = parts.reduce((n, p) => n + lognormalVariance(p), 0);
  if (!(mean > 0)) throw new RangeError(`a sum of latencies needs a positive mean (got ${mean} ms)`);
  const sigma2 = Math.log(1 + variance / (mean * mean));
  return { mu: Math.log(mean) - sigma2 / 2, sigma: Math.sqrt(sigma2) };
}

/** The standard normal CDF, from erf by Abramowitz and Stegun 7.1.26 (absolute error under 1.5e-7). */
export function standardNormalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Steps of the integral below: exact to a few parts in 10,000 for k up to 10,000. */
const STEPS = 4_000;
const Z_RANGE = 8;

/**
 * The expected largest of `k` independent draws: the integral of (1 - F(x)^k) over x, taken in z
 * (x = exp(mu + sigma z)) by the trapezoid rule over z in [-8, 8]. For k = 1 it is the mean.
 */
export function expectedMaximum(d: LognormalParameters, k: number): number {
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`the slowest of k draws needs a whole k >= 1 (got ${k})`);
  if (d.sigma === 0) return Math.exp(d.mu);
  const h = (2 * Z_RANGE) / STEPS;
  let total = 0;
  for (let i = 0; i <= STEPS; i += 1) {
    const z = -Z_RANGE + i * h;
    const weight = i === 0 || i === STEPS ? 0.5 : 1;
    total += weight * (1 - standardNormalCdf(z) ** k) * d.sigma * Math.exp(d.mu + d.sigma * z);
  }
  // Below z = -8 every draw is at least x, so 1 - F^k is 1 there: add the integral of x over it.
  return total * h + Math.exp(d.mu - d.sigma * Z_RANGE);
}
