import { METRIC, type MetricName } from '../functions/core/observability/metric-names';
import type { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';

/** Every lane's counts by dimensions, summed. */
export function mergedDimensions(all: Iterable<InMemoryMetrics>): Pick<InMemoryMetrics, 'byDimensions'> {
  const byDimensions = new Map<string, number>();
  for (const m of all) for (const [key, n] of m.byDimensions) byDimensions.set(key, (byDimensions.get(key) ?? 0) + n);
  return { byDimensions };
}

/** The metrics a run counted, those above 0. */
export function countsOf(get: (name: MetricName) => number): Record<string, number> {
  return Object.fromEntries(Object.values(METRIC).map((name) => [name, get(name)]).filter(([, n]) => Number(n) > 0));
}
