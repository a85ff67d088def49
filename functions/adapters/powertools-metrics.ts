import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricDimensions, MetricsRecorder } from '../core/observability/metrics-recorder';
import { DIMENSION, type MetricName } from '../core/observability/metric-names';

/**
 * EMF through Powertools. Each count lands twice: under the `service` dimension alone
 * (what alarms watch) and, per invocation, once per channel/class combination (what
 * dashboards break down), aggregated so a large batch writes a handful of EMF lines.
 */
export class PowertoolsMetricsRecorder implements MetricsRecorder {
  private readonly pending = new Map<string, { name: MetricName; dimensions: MetricDimensions; value: number }>();

  constructor(private readonly metrics: Metrics) {}

  count(name: MetricName, dimensions: MetricDimensions = {}, value = 1): void {
    this.metrics.addMetric(name, MetricUnit.Count, value);
    if (!dimensions.channel && !dimensions.messageClass && !dimensions.reason && !dimensions.field) return;
    const id = `${name}|${dimensions.channel ?? ''}|${dimensions.messageClass ?? ''}|${dimensions.reason ?? ''}|${dimensions.field ?? ''}`;
    const entry = this.pending.get(id);
    if (entry) entry.value += value;
    else this.pending.set(id, { name, dimensions, value });
  }

  /** Emits the per-dimension counts; call once at the end of an invocation. */
  flush(): void {
    for (const { name, dimensions, value } of this.pending.values()) {
      const single = this.metrics.singleMetric();
      if (dimensions.channel) single.addDimension(DIMENSION.channel, dimensions.channel);
      if (dimensions.messageClass) single.addDimension(DIMENSION.messageClass, dimensions.messageClass);
      if (dimensions.reason) single.addDimension(DIMENSION.reason, dimensions.reason);
      if (dimensions.field) single.addDimension(DIMENSION.field, dimensions.field);
      single.addMetric(name, MetricUnit.Count, value);
    }
    this.pending.clear();
  }
}
