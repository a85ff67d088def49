import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { CHANNELS } from '../functions/core/event/idempotency-key';
import { DIMENSION, SERVICE, type MetricName, type ServiceName } from '../functions/core/observability/metric-names';

export { SERVICE, type ServiceName };

/** Default period of every custom-metric alarm and graph. */
export const DEFAULT_METRIC_PERIOD = Duration.minutes(5);

/** Channels with delivery-status evidence (push has none). */
export const STATUS_CHANNELS = ['email', 'sms'] as const satisfies readonly (typeof CHANNELS)[number][];

/**
 * The notifier's own metrics in one namespace (one notifier's, see `IdempotentNotifier.metricsNamespace`):
 * alarms and graphs made here read that notifier's metrics only, SEARCH expressions included.
 */
export class NotifierMetrics {
  constructor(
    /** The namespace the notifier's functions emit to. */
    public readonly namespace: string,
    /** Period of every metric and expression made here. */
    public readonly period: Duration = DEFAULT_METRIC_PERIOD,
  ) {}

  /** The same metrics at another period. */
  atPeriod(period: Duration): NotifierMetrics {
    return new NotifierMetrics(this.namespace, period);
  }

  /**
   * The dimension set of the per-message metrics, in the order of a SEARCH schema: the sender
   * emits each per-message count once more with `channel` and `messageClass` (besides `service`).
   */
  get perMessageSearchSchema(): readonly string[] {
    return [this.namespace, DIMENSION.channel, DIMENSION.messageClass, DIMENSION.service];
  }

  /** One of the notifier's metrics, summed over the period, with only the `service` dimension. */
  of(service: ServiceName, metricName: MetricName): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName,
      dimensionsMap: { [DIMENSION.service]: service },
      statistic: cloudwatch.Stats.SUM,
      period: this.period,
    });
  }

  /**
   * A count summed over both functions that send: the sender and the reclaimer each hold a share of the
   * send rate and count provider outcomes the same way. `id` prefixes the ids of the two metrics (unique
   * within one alarm or expression).
   */
  sendingFunctions(metricName: MetricName, id: string, label: string = metricName): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `FILL(${id}Sender, 0) + FILL(${id}Reclaimer, 0)`,
      usingMetrics: {
        [`${id}Sender`]: this.of(SERVICE.sender, metricName),
        [`${id}Reclaimer`]: this.of(SERVICE.reclaimer, metricName),
      },
      label,
      period: this.period,
    });
  }

  /**
   * One line per channel for `metricName`: a SEARCH over the `channel` dimension (all message
   * classes and services), summed per channel.
   */
  byChannel(metricName: MetricName): cloudwatch.MathExpression[] {
    const schema = `{${this.perMessageSearchSchema.join(',')}}`;
    return CHANNELS.map(
      (channel) =>
        new cloudwatch.MathExpression({
          expression:
            `SUM(SEARCH('${schema} MetricName="${metricName}" ${DIMENSION.channel}="${channel}"', ` +
            `'Sum', ${this.period.toSeconds()}))`,
          label: `${metricName} ${channel}`,
          period: this.period,
        }),
    );
  }

  /**
   * A per-message count of e-mails of `messageClasses`, summed over the two functions that send (the sender and the
   * reclaimer): the metrics with the `channel`, `messageClass` and `service` dimensions. `id` prefixes the metric ids.
   */
  emailOfClasses(metricName: MetricName, messageClasses: readonly string[], id: string, label: string = metricName): cloudwatch.MathExpression {
    const usingMetrics: Record<string, cloudwatch.IMetric> = {};
    messageClasses.forEach((messageClass, i) => {
      for (const service of [SERVICE.sender, SERVICE.reclaimer]) {
        usingMetrics[`${id}${i}${service === SERVICE.sender ? 'S' : 'R'}`] = new cloudwatch.Metric({
          namespace: this.namespace,
          metricName,
          dimensionsMap: { [DIMENSION.channel]: 'email', [DIMENSION.messageClass]: messageClass, [DIMENSION.service]: service },
          statistic: cloudwatch.Stats.SUM,
          period: this.period,
        });
      }
    });
    return new cloudwatch.MathExpression({
      expression: Object.keys(usingMetrics).map((metricId) => `FILL(${metricId}, 0)`).join(' + '),
      usingMetrics,
      label,
      period: this.period,
    });
  }

  /**
   * One line per channel the status Lambda reports (`email` from SES events, `sms` from SNS delivery
   * logs): its per-channel counts carry the `channel` and `service` dimensions only.
   */
  statusByChannel(metricName: MetricName): cloudwatch.MathExpression[] {
    const schema = `{${this.namespace},${DIMENSION.channel},${DIMENSION.service}}`;
    return STATUS_CHANNELS.map(
      (channel) =>
        new cloudwatch.MathExpression({
          expression:
            `SUM(SEARCH('${schema} MetricName="${metricName}" ${DIMENSION.service}="${SERVICE.status}" ` +
            `${DIMENSION.channel}="${channel}"', 'Sum', ${this.period.toSeconds()}))`,
          label: `${metricName} ${channel}`,
          period: this.period,
        }),
    );
  }
}
