/**
 * Lognormal round-trip latencies for the ports where a Lambda sender waits: the provider call and
 * each DynamoDB request. Loopback answers in well under a millisecond, so without a model the
 * bench measures CPU in the SDK pipeline instead of the waits that dominate billed time on Lambda.
 */

/** A lognormal latency given by its median and 99th percentile. */
export interface LatencyDistribution {
  /** What the latency is of, for reports. */
  readonly label: string;
  readonly medianMs: number;
  /** Equal to the median for a fixed latency. */
  readonly p99Ms: number;
  /** Where the figures come from (or that they are an assumption). */
  readonly source: string;
}

/** The standard normal's 99th percentile. */
const Z_99 = 2.326;

/** A provider call (SES v2 SendEmail, SNS Publish) from Lambda, answer included. */
export const PROVIDER_LATENCY: LatencyDistribution = {
  label: 'provider call (SES v2 SendEmail / SNS Publish)',
  medianMs: 60,
  p99Ms: 400,
  source: 'assumption: the figures issue 11 proposes; neither SES nor SNS publishes latency percentiles',
};

/** One DynamoDB request from Lambda in the same Region, on top of dynalite's own loopback time. */
export const DYNAMO_LATENCY: LatencyDistribution = {
  label: 'DynamoDB request, same Region',
  medianMs: 5,
  p99Ms: 25,
  source: 'assumption: AWS describes DynamoDB as "single-digit millisecond" at any scale; the p99 is set at 5x the median',
};

/** mu and sigma of the underlying normal: sigma = ln(p99 / median) / 2.326. */
export function lognormalParameters(d: LatencyDistribution): { readonly mu: number; readonly sigma: number } {
  if (!(d.medianMs > 0) || !(d.p99Ms >= d.medianMs)) {
    throw new RangeError(`${d.label}: needs 0 < median <= p99 (median ${d.medianMs} ms, p99 ${d.p99Ms} ms)`);
  }
  return { mu: Math.log(d.medianMs), sigma: Math.log(d.p99Ms / d.medianMs) / Z_99 };
}

/**
 * A latency drawn from two uniforms in [0, 1) by Box-Muller. Hand-written (two lines): samplers in
 * libraries draw from their own stream, and the provider's draws must be fixed by the message key.
 */
export function lognormalMs(d: LatencyDistribution, u1: number, u2: number): number {
  const { mu, sigma } = lognormalParameters(d);
  const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
  return Math.exp(mu + sigma * z);
}

/** One line per distribution, for printed and written results. */
export function describeLatency(d: LatencyDistribution): string {
  const { sigma } = lognormalParameters(d);
  return `${d.label}: lognormal, median ${d.medianMs} ms, p99 ${d.p99Ms} ms (sigma ${sigma.toFixed(3)}); ${d.source}`;
}
