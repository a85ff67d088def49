import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { ALARM } from './alarm-names';
import { acrossLanes, anyOccurrence } from './alarm-metrics';
import type { AlarmGroup, AlarmSources, NotifierFunctions } from './alarm-spec';

const functionErrors = (fn: (f: NotifierFunctions) => lambda.IFunction) => (s: AlarmSources) =>
  fn(s.functions).metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM });
const functionThrottles = (fn: (f: NotifierFunctions) => lambda.IFunction) => (s: AlarmSources) =>
  fn(s.functions).metricThrottles({ period: s.settings.period, statistic: cloudwatch.Stats.SUM });
const senderErrors = (s: AlarmSources) =>
  acrossLanes(s, (lane) => lane.sender.metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }), 'sum');
const senderThrottles = (s: AlarmSources) =>
  acrossLanes(s, (lane) => lane.sender.metricThrottles({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }), 'sum');

/** The functions themselves: whole invocations that failed or were throttled, per function. */
export const FUNCTION_ALARMS = {
  [ALARM.senderErrors]: {
    description: 'The sender function failed whole invocations (crash, timeout, configuration error).',
    metric: senderErrors,
    threshold: anyOccurrence,
  },
  [ALARM.senderThrottles]: {
    description: 'The sender function was throttled (account concurrency exhausted).',
    metric: senderThrottles,
    threshold: anyOccurrence,
  },
  [ALARM.reclaimerErrors]: {
    description: 'The reclaimer function failed whole invocations.',
    metric: functionErrors((f) => f.reclaimer),
    threshold: anyOccurrence,
  },
  [ALARM.reclaimerThrottles]: {
    description: 'The reclaimer function was throttled.',
    metric: functionThrottles((f) => f.reclaimer),
    threshold: anyOccurrence,
  },
  [ALARM.statusErrors]: {
    description:
      'The delivery-status function failed whole invocations (ledger errors, configuration error); Lambda retries them twice, then sends the events to the failed-events queue.',
    metric: functionErrors((f) => f.status),
    threshold: anyOccurrence,
  },
  [ALARM.statusThrottles]: {
    description: 'The delivery-status function was throttled; delivery evidence arrives late.',
    metric: functionThrottles((f) => f.status),
    threshold: anyOccurrence,
  },
} satisfies AlarmGroup;
