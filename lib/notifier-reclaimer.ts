import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { createNotifierFunction, type NotifierFunction, type NotifierFunctionOptions } from './notifier-function';

/** The reclaimer: its handler and how often it runs. */
export interface ReclaimerOptions extends Omit<NotifierFunctionOptions, 'description'> {
  /** How often it looks for stale PENDING rows. */
  readonly schedule: Duration;
}

/** The reclaimer function and the rule that runs it. */
export interface Reclaimer extends NotifierFunction {
  /** The schedule that invokes it. */
  readonly rule: events.Rule;
}

/**
 * The function `Reclaimer` in `scope` (with `ReclaimerLogs` and `ReclaimerRole`) and the rule
 * `ReclaimerSchedule` that invokes it every `schedule`.
 */
export function createReclaimer(scope: Construct, options: ReclaimerOptions): Reclaimer {
  const { schedule, ...fn } = options;
  const reclaimer = createNotifierFunction(scope, 'Reclaimer', {
    ...fn,
    description: 'Idempotent notification reclaimer: resolves stale PENDING ledger rows',
  });
  // A failed run is not retried and a late one is dropped: the next scheduled run does the same work
  // from a fresh read, and a retry would only overlap it. Lambda's bounds: 60 s to 6 h.
  reclaimer.fn.configureAsyncInvoke({
    retryAttempts: 0,
    maxEventAge: Duration.seconds(Math.min(Math.max(schedule.toSeconds(), 60), 6 * 3600)),
  });
  const rule = new events.Rule(scope, 'ReclaimerSchedule', {
    description: 'Runs the notifier reclaimer',
    schedule: events.Schedule.rate(schedule),
    targets: [new eventsTargets.LambdaFunction(reclaimer.fn, { retryAttempts: 0 })],
  });
  return { ...reclaimer, rule };
}
