import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { DIMENSION, METRICS_NAMESPACE, type MetricName } from '../functions/core/metric-names';

/**
 * Values of the `service` dimension the Lambda code emits with every metric.
 * Each function also emits every metric with only this dimension, so alarms use it alone.
 */
export const SERVICE = {
  sender: 'sender',
  reclaimer: 'reclaimer',
} as const;

/** A value of the `service` dimension. */
export type ServiceName = (typeof SERVICE)[keyof typeof SERVICE];

/**
 * The dimension set of the per-channel metrics, in the order of a SEARCH schema.
 * Graphs of "by channel" use `SEARCH('{namespace,service,channel} ...')`.
 */
export const CHANNEL_SEARCH_SCHEMA = [METRICS_NAMESPACE, DIMENSION.service, DIMENSION.channel] as const;

/** Default period of every custom-metric alarm and graph. */
export const DEFAULT_METRIC_PERIOD = Duration.minutes(5);

/**
 * One of the notifier's own metrics (namespace and names shared with the Lambda code),
 * summed over `period`, with only the `service` dimension.
 */
export function notifierMetric(
  service: ServiceName,
  metricName: MetricName,
  period: Duration = DEFAULT_METRIC_PERIOD,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [DIMENSION.service]: service },
    statistic: cloudwatch.Stats.SUM,
    period,
  });
}

/**
 * A SEARCH over the `channel` dimension: one line per (service, channel) for `metricName`,
 * labelled with CloudWatch dynamic labels.
 */
export function byChannel(
  metricName: MetricName,
  label: string,
  period: Duration = DEFAULT_METRIC_PERIOD,
): cloudwatch.MathExpression {
  const schema = `{${CHANNEL_SEARCH_SCHEMA.join(',')}}`;
  return new cloudwatch.MathExpression({
    expression: `SEARCH('${schema} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
    label: `${label} \${PROP('Dim.${DIMENSION.service}')}/\${PROP('Dim.${DIMENSION.channel}')}`,
    period,
  });
}
