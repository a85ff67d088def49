import { reclaimerWith, type Reclaimer, type ReclaimerDependencies } from './reclaimer-walk';
import { settleStaleRow } from './settle-stale-row';

export type { Reclaimer, ReclaimerDependencies, ReclaimerRunOptions, ReclaimerRunSummary } from './reclaimer-walk';

/**
 * A reclaimer that settles each stale row with the delivery code loaded beside it: local runs, the CLI and the tests
 * (the interleaving model among them, whose schedules replay only without an unscheduled module load). The Lambda's
 * handler loads that code with a run's first stale row instead (create-reclaimer-handler.ts).
 */
export function createReclaimer(deps: ReclaimerDependencies): Reclaimer {
  return reclaimerWith(deps, settleStaleRow);
}
