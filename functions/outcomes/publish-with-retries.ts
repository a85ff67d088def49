import { METRIC } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import { putEventsChunks, type OutcomeBus } from '../core/outcome/outcome-bus';
import type { PendingOutcome } from './outcomes-of-batch';

export interface PublishRetries {
  readonly bus: OutcomeBus;
  readonly metrics: MetricsRecorder;
  /** One pause before each new try; a try after the last pause is the last. */
  readonly pauses: readonly number[];
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Puts `outcomes` on the bus in PutEvents-sized chunks, and puts what it did not take again after each pause.
 * Every failed entry is counted (`OutcomeEntryFailed`), every taken one once (`OutcomePublished`). Answers what
 * is still not on the bus after the last try: never dropped, the caller hands its records back.
 */
export async function publishWithRetries(outcomes: readonly PendingOutcome[], r: PublishRetries): Promise<readonly PendingOutcome[]> {
  let remaining = outcomes;
  for (let attempt = 0; remaining.length > 0; attempt += 1) {
    if (attempt > 0) {
      const pause = r.pauses[attempt - 1];
      if (pause === undefined) break;
      await r.sleep(pause);
    }
    const failed: PendingOutcome[] = [];
    let start = 0;
    // Chunks are consecutive runs of the list, in order.
    for (const chunk of putEventsChunks(remaining.map((o) => o.detail))) {
      const sent = remaining.slice(start, start + chunk.length);
      start += chunk.length;
      const refused = await r.bus.publish(chunk);
      const refusedAt = new Set(refused.map((f) => f.index));
      sent.forEach((outcome, index) => (refusedAt.has(index) ? failed.push(outcome) : undefined));
      if (refused.length > 0) r.metrics.count(METRIC.OutcomeEntryFailed, {}, refused.length);
      if (sent.length - refusedAt.size > 0) r.metrics.count(METRIC.OutcomePublished, {}, sent.length - refusedAt.size);
    }
    remaining = failed;
  }
  return remaining;
}
