import type { Context } from 'aws-lambda';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import { createReclaimer, type ReclaimerDependencies, type ReclaimerRunSummary } from './create-reclaimer';

/** The reclaimer's ports plus the Powertools pieces the Lambda wiring adds. */
export interface ReclaimerHandlerDependencies extends ReclaimerDependencies, ObservabilityHooks {}

/** Scheduled invocation: the EventBridge event's content is ignored. */
export type ReclaimerHandler = (event: unknown, context: Context) => Promise<ReclaimerRunSummary>;

/**
 * Builds the scheduled handler: one bounded reclaimer run per invocation, its budget also capped
 * by the time Lambda has left. A failing index query fails the invocation (the Errors alarm);
 * rows already settled stay settled, the rest wait for the next run.
 */
export function createReclaimerHandler(deps: ReclaimerHandlerDependencies): ReclaimerHandler {
  const reclaimer = createReclaimer(deps);
  const base = (_event: unknown, context: Context): Promise<ReclaimerRunSummary> =>
    reclaimer.run({ remainingTimeMs: context.getRemainingTimeInMillis() });
  return instrumentHandler(base, deps);
}
