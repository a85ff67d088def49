import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createReclaimer, type ReclaimerDependencies, type ReclaimerRunSummary } from './create-reclaimer';

/** The reclaimer's ports plus the Powertools pieces the Lambda wiring adds. */
export interface ReclaimerHandlerDependencies extends ReclaimerDependencies {
  /** Powertools logger for Lambda context injection. @default none (tests) */
  readonly powertoolsLogger?: Logger;
  /** Powertools metrics to publish at the end of each invocation. @default none (tests) */
  readonly powertoolsMetrics?: Metrics;
  /** Called at the end of each invocation, before metrics are published. @default none */
  readonly flushMetrics?: () => void;
}

/** Scheduled invocation: the EventBridge event's content is ignored. */
export type ReclaimerHandler = (event: unknown, context: Context) => Promise<ReclaimerRunSummary>;

/**
 * Builds the scheduled handler: one bounded reclaimer run per invocation, its budget also capped
 * by the time Lambda has left. A failing index query fails the invocation (the Errors alarm);
 * rows already settled stay settled, the rest wait for the next run.
 */
export function createReclaimerHandler(deps: ReclaimerHandlerDependencies): ReclaimerHandler {
  const reclaimer = createReclaimer(deps);
  const base = async (_event: unknown, context: Context): Promise<ReclaimerRunSummary> => {
    try {
      return await reclaimer.run({ remainingTimeMs: context.getRemainingTimeInMillis() });
    } finally {
      deps.flushMetrics?.();
    }
  };
  const handler = middy(base);
  if (deps.powertoolsLogger) handler.use(injectLambdaContext(deps.powertoolsLogger));
  if (deps.powertoolsMetrics) handler.use(logMetrics(deps.powertoolsMetrics));
  return handler as unknown as ReclaimerHandler;
}
