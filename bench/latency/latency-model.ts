import { TYPICAL_LATENCIES } from '../../lib/capacity-model/lane-throughput';
import { lognormalParameters as parametersOf, type LognormalParameters } from '../../lib/capacity-model/lognormal-latency';

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

/** A provider call (SES v2 SendEmail, SNS Publish) from Lambda, answer included: the capacity model's figures. */
export const PROVIDER_LATENCY: LatencyDistribution = {
  label: 'provider call (SES v2 SendEmail / SNS Publish)',
  medianMs: TYPICAL_LATENCIES.provider.medianMs,
  p99Ms: TYPICAL_LATENCIES.provider.p99Ms,
  source: 'assumption: the figures issue 11 proposes; neither SES nor SNS publishes latency percentiles',
};

/** One DynamoDB request from Lambda in the same Region, on top of dynalite's own loopback time: the capacity model's figures. */
export const DYNAMO_LATENCY: LatencyDistribution = {
  label: 'DynamoDB request, same Region',
  medianMs: TYPICAL_LATENCIES.ledger.medianMs,
  p99Ms: TYPICAL_LATENCIES.ledger.p99Ms,
  source: 'assumption: AWS describes DynamoDB as "single-digit millisecond" at any scale; the p99 is set at 5x the median',
};

/** mu and sigma of the underlying normal, by the rule the capacity model uses (lib/capacity-model/lognormal-latency.ts). */
export function lognormalParameters(d: LatencyDistribution): LognormalParameters {
  return parametersOf(d);
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
