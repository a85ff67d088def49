import type { Context } from 'aws-lambda';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import { reclaimerWith, type ReclaimerDependencies, type ReclaimerRunSummary } from './reclaimer-walk';
import type { SettleStaleRow } from './settle-stale-row';

/** The reclaimer's ports plus the Powertools pieces the Lambda wiring adds. */
export interface ReclaimerHandlerDependencies extends ReclaimerDependencies, ObservabilityHooks {}

/** Scheduled invocation: the EventBridge event's content is ignored. */
export type ReclaimerHandler = (event: unknown, context: Context) => Promise<ReclaimerRunSummary>;

/**
 * {@link SettleStaleRow}, its module (the delivery code, most of what the reclaimer carries) loaded with the first stale
 * row an environment finds: most runs find none (issue 50). Once loaded, called without another `import()`.
 */
let loadedSettle: SettleStaleRow | undefined;
const settleOnFirstStaleRow: SettleStaleRow = async (row, now, deps) => {
  loadedSettle ??= (await import('./settle-stale-row')).settleStaleRow;
  return loadedSettle(row, now, deps);
};

/**
 * Builds the scheduled handler: one bounded reclaimer run per invocation, its budget also capped
 * by the time Lambda has left. A failing index query fails the invocation (the Errors alarm);
 * rows already settled stay settled, the rest wait for the next run.
 */
export function createReclaimerHandler(deps: ReclaimerHandlerDependencies): ReclaimerHandler {
  const reclaimer = reclaimerWith(deps, settleOnFirstStaleRow);
  const base = (_event: unknown, context: Context): Promise<ReclaimerRunSummary> =>
    reclaimer.run({ remainingTimeMs: context.getRemainingTimeInMillis() });
  return instrumentHandler(base, deps);
}
