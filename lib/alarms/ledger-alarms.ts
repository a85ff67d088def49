import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence } from './alarm-metrics';
import type { AlarmGroup, AlarmSources } from './alarm-spec';

/** Read and write throttle events of the ledger table and of each of its indexes, summed. */
const ledgerThrottleEvents = (s: AlarmSources): cloudwatch.MathExpression => {
  const targets = [{ id: 'table', dimensions: {} }, ...s.ledgerIndexNames.map((name, i) => ({ id: `index${i}`, dimensions: { GlobalSecondaryIndexName: name } }))];
  const usingMetrics: Record<string, cloudwatch.IMetric> = {};
  for (const { id, dimensions } of targets) {
    for (const which of ['Read', 'Write'] as const) {
      usingMetrics[`${which.toLowerCase()}${id[0]!.toUpperCase()}${id.slice(1)}`] = new cloudwatch.Metric({
        namespace: 'AWS/DynamoDB',
        metricName: `${which}ThrottleEvents`,
        dimensionsMap: { TableName: s.table.tableName, ...dimensions },
        statistic: cloudwatch.Stats.SUM,
        period: s.settings.period,
      });
    }
  }
  return new cloudwatch.MathExpression({
    expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
    usingMetrics,
    label: 'Ledger throttle events (table and indexes)',
    period: s.settings.period,
  });
};

/** The send ledger: requests that failed after their retries, and DynamoDB throttling. */
export const LEDGER_ALARMS = {
  [ALARM.ledgerErrors]: {
    description:
      'Ledger (DynamoDB) requests of the sender or the reclaimer failed after their retries: the records are retried, nothing is sent unclaimed.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.LedgerError, 'ledger'),
    threshold: anyOccurrence,
  },
  [ALARM.ledgerThrottled]: {
    description: 'DynamoDB throttled requests on the ledger table or one of its indexes (on-demand limits, a hot partition, or the account table quota).',
    metric: ledgerThrottleEvents,
    threshold: anyOccurrence,
  },
} satisfies AlarmGroup;
