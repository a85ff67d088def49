import type { Channel } from '../event/idempotency-key';
import type { MetricName } from './metric-names';
import type { SuppressionReason } from '../policy/suppression';
import type { LocaleFallbackReason } from '../event/recipient-locale';

/**
 * The `reason` of the `Fallback...` metrics (core/fallback/fallback-decision.ts names the same): a fallback's trigger,
 * why it was not due, or why it could not be sent. A closed list, as every dimension value is.
 */
export type FallbackMetricReason =
  | 'certainly-undelivered'
  | 'no-evidence'
  | 'pending'
  | 'delivered'
  | 'possibly-delivered'
  | 'kept-from-fallback'
  | 'class-never-falls-back'
  | 'PrimaryGone'
  | 'UnknownMessageClass'
  | 'NoPlan'
  | 'PlanUnreadable';

/** Optional breakdown of a count. */
export interface MetricDimensions {
  readonly channel?: Channel;
  readonly messageClass?: string;
  /**
   * Only with `Suppressed`: which rule stopped the message; with `LocaleFallback`: why the default locale was used;
   * with the `Fallback...` metrics: the trigger, or why nothing was sent.
   */
  readonly reason?: SuppressionReason | LocaleFallbackReason | FallbackMetricReason;
  /** Only with `UnknownEventField`: the field's name (bounded: `unknownEventFields`). */
  readonly field?: string;
}

/** Counting port: the Lambda adapter emits EMF, tests and the local runner keep totals. */
export interface MetricsRecorder {
  count(name: MetricName, dimensions?: MetricDimensions, value?: number): void;
}

/** Totals in memory: by name, and by name + dimensions. */
export class InMemoryMetrics implements MetricsRecorder {
  readonly totals = new Map<MetricName, number>();
  readonly byDimensions = new Map<string, number>();

  count(name: MetricName, dimensions: MetricDimensions = {}, value = 1): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + value);
    const dimKey = `${name}|${dimensions.channel ?? '-'}|${dimensions.messageClass ?? '-'}${dimensions.reason ? `|${dimensions.reason}` : ''}${dimensions.field ? `|${dimensions.field}` : ''}`;
    this.byDimensions.set(dimKey, (this.byDimensions.get(dimKey) ?? 0) + value);
  }

  get(name: MetricName): number {
    return this.totals.get(name) ?? 0;
  }
}
