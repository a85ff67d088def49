import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, senderRatePercent, smsEnabled } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/** What stands between a producer and the bill: limits and destination rules at work, the limit store, the SMS spend. */
export const ABUSE_ALARMS = {
  [ALARM.suppressedRate]: {
    description:
      'Limits or destination rules stopped an unusual share of messages (never sent): a likely SMS-pumping or sign-up attack, or a producer in a loop. The metric Suppressed has the reason and class as dimensions.',
    metric: (s) => senderRatePercent(s, METRIC.Suppressed, 'Suppressed %'),
    threshold: (s) => s.settings.suppressedRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.limitStoreError]: {
    description:
      'The limit counters could not be written (DynamoDB throttled or unreachable): messages of limited classes wait unsent, their records backing off.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.LimitStoreError, 'limitStoreError'),
    threshold: anyOccurrence,
  },
  [ALARM.smsMonthToDateSpend]: {
    description:
      'SMS spend this month approaches the monthly spend limit; SNS (or End User Messaging) stops sending SMS when it is reached.',
    // End User Messaging publishes its own spend (AWS/SMSVoice TextMessageMonthlySpend; its monitoring page), SNS its own.
    metric: (s) =>
      (s.smsProvider ?? 'sns') === 'end-user-messaging'
        ? new cloudwatch.Metric({ namespace: 'AWS/SMSVoice', metricName: 'TextMessageMonthlySpend', statistic: cloudwatch.Stats.MAXIMUM, period: s.settings.period })
        : new cloudwatch.Metric({ namespace: 'AWS/SNS', metricName: 'SMSMonthToDateSpentUSD', statistic: cloudwatch.Stats.MAXIMUM, period: s.settings.period }),
    threshold: (s) => s.settings.smsSpendThresholdUsd,
    when: smsEnabled,
  },
} satisfies AlarmGroup;
