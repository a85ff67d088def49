import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { CHANNELS } from '../functions/core/idempotency-key';
import { DIMENSION, METRICS_NAMESPACE, SERVICE, type MetricName, type ServiceName } from '../functions/core/metric-names';

export { SERVICE, type ServiceName };

/**
 * The dimension set of the per-message metrics, in the order of a SEARCH schema: the sender
 * emits each per-message count once more with `channel` and `messageClass` (besides `service`).
 */
export const PER_MESSAGE_SEARCH_SCHEMA = [
  METRICS_NAMESPACE,
  DIMENSION.channel,
  DIMENSION.messageClass,
  DIMENSION.service,
] as const;

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
 * A count summed over both functions that send: the sender and the reclaimer each hold a share of the
 * send rate and count provider outcomes the same way. `id` prefixes the ids of the two metrics (unique
 * within one alarm or expression).
 */
export function sendingFunctionsMetric(
  metricName: MetricName,
  id: string,
  period: Duration = DEFAULT_METRIC_PERIOD,
  label: string = metricName,
): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `FILL(${id}Sender, 0) + FILL(${id}Reclaimer, 0)`,
    usingMetrics: {
      [`${id}Sender`]: notifierMetric(SERVICE.sender, metricName, period),
      [`${id}Reclaimer`]: notifierMetric(SERVICE.reclaimer, metricName, period),
    },
    label,
    period,
  });
}

/**
 * One line per channel for `metricName`: a SEARCH over the `channel` dimension (all message
 * classes and services), summed per channel.
 */
export function byChannel(metricName: MetricName, period: Duration = DEFAULT_METRIC_PERIOD): cloudwatch.MathExpression[] {
  const schema = `{${PER_MESSAGE_SEARCH_SCHEMA.join(',')}}`;
  return CHANNELS.map(
    (channel) =>
      new cloudwatch.MathExpression({
        expression:
          `SUM(SEARCH('${schema} MetricName="${metricName}" ${DIMENSION.channel}="${channel}"', ` +
          `'Sum', ${period.toSeconds()}))`,
        label: `${metricName} ${channel}`,
        period,
      }),
  );
}

/** Channels with delivery-status evidence (push has none). */
export const STATUS_CHANNELS = ['email', 'sms'] as const satisfies readonly (typeof CHANNELS)[number][];

/**
 * One line per channel the status Lambda reports (`email` from SES events, `sms` from SNS delivery
 * logs): its per-channel counts carry the `channel` and `service` dimensions only.
 */
export function statusByChannel(
  metricName: MetricName,
  period: Duration = DEFAULT_METRIC_PERIOD,
): cloudwatch.MathExpression[] {
  const schema = `{${METRICS_NAMESPACE},${DIMENSION.channel},${DIMENSION.service}}`;
  return STATUS_CHANNELS.map(
    (channel) =>
      new cloudwatch.MathExpression({
        expression:
          `SUM(SEARCH('${schema} MetricName="${metricName}" ${DIMENSION.service}="${SERVICE.status}" ` +
          `${DIMENSION.channel}="${channel}"', 'Sum', ${period.toSeconds()}))`,
        label: `${metricName} ${channel}`,
        period,
      }),
  );
}
