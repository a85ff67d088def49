import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { METRIC, SERVICE, type MetricName } from '../../functions/core/observability/metric-names';
import type { AlarmLane, AlarmSources } from './alarm-spec';

/** Metric builders and thresholds that alarms of several concerns read. */

/** Fires on any occurrence in one period. */
export const anyOccurrence = (): number => 0;

/** SES and SNS update account and reputation metrics about hourly: these alarms look at whole hours. */
export const HOUR = Duration.hours(1);

/** Whether the notifier sends SMS (the SMS alarms exist only then). */
export const smsEnabled = (s: AlarmSources): boolean => s.smsEnabled;

/** Whether SMS goes through SNS (its account metrics: spend, success rate). */
export const smsThroughSns = (s: AlarmSources): boolean => s.smsEnabled && (s.smsProvider ?? 'sns') === 'sns';

/** How many `period`s make `sustained` (the check is in `alarmOptionViolations`). */
export function sustainedPeriods(sustained: Duration, period: Duration): number {
  return Math.max(1, Math.round(sustained.toSeconds() / period.toSeconds()));
}

/** One of the sender's own metrics. */
export const sender = (s: AlarmSources, name: MetricName): cloudwatch.Metric => s.metrics.of(SERVICE.sender, name);

/** 100 x part / (part + Sent) of the sender. */
export const senderRatePercent = (s: AlarmSources, part: MetricName, label: string): cloudwatch.MathExpression =>
  new cloudwatch.MathExpression({
    expression: 'IF((FILL(part, 0) + FILL(sent, 0)) > 0, 100 * FILL(part, 0) / (FILL(part, 0) + FILL(sent, 0)), 0)',
    usingMetrics: { part: sender(s, part), sent: sender(s, METRIC.Sent) },
    label,
    period: s.settings.period,
  });

/** The most messages visible in a queue during a period. */
export const visibleMessages = (s: AlarmSources, queue: sqs.IQueue): cloudwatch.Metric =>
  queue.metricApproximateNumberOfMessagesVisible({ period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM });

/**
 * One metric per lane, combined: with one lane the metric itself (the alarm of the stack before lanes),
 * else their sum or their maximum, point by point.
 */
export function acrossLanes(s: AlarmSources, make: (lane: AlarmLane) => cloudwatch.Metric, combine: 'sum' | 'max'): cloudwatch.IMetric {
  const [only, ...more] = s.lanes;
  if (only && more.length === 0) return make(only);
  const usingMetrics = Object.fromEntries(s.lanes.map((lane) => [lane.name, make(lane)]));
  const ids = Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`);
  return new cloudwatch.MathExpression({
    expression: combine === 'sum' ? ids.join(' + ') : `MAX([${ids.join(', ')}])`,
    usingMetrics,
    label: `${combine === 'sum' ? 'sum' : 'largest'} over the lanes`,
    period: s.settings.period,
  });
}
