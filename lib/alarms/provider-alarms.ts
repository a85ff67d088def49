import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, HOUR, smsThroughSns, sustainedPeriods } from './alarm-metrics';
import type { AlarmGroup, AlarmSources } from './alarm-spec';

const sesReputation = (
  s: AlarmSources,
  metricName: 'Reputation.BounceRate' | 'Reputation.ComplaintRate',
  configurationSetName = s.configurationSetName,
): cloudwatch.Metric =>
  new cloudwatch.Metric({
    namespace: 'AWS/SES',
    metricName,
    // Published per configuration set when its reputation metrics are on (the created sets have them on): one set per
    // lane, so these are each lane's tenant's own rates.
    dimensionsMap: { 'ses:configuration-set': configurationSetName },
    statistic: cloudwatch.Stats.MAXIMUM,
    period: HOUR,
  });

/** Messages settled by their evidence wait per hour above which the evidence path is suspect (a lost event is rare). */
export const SETTLED_BY_WAIT_PER_HOUR = 10;

/** The providers' answers and the account's standing with them: configuration faults, quotas, throttling, undocumented errors, SES reputation, SMS success. */
export const PROVIDER_ALARMS = {
  [ALARM.providerConfigurationFault]: {
    description:
      'A provider refused sends until an operator acts (SES sending paused or account suspended, unverified From identity, missing configuration set; SNS authorization or KMS). The records back off and are retried; nothing is sent until it is fixed.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.ProviderConfigurationFault, 'fault'),
    threshold: anyOccurrence,
  },
  [ALARM.providerQuotaExhausted]: {
    description:
      'SES refused e-mails because the daily sending quota (Max24HourSend) is spent: e-mail is paused until the rolling 24-hour window frees quota.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.ProviderQuotaExhausted, 'quota'),
    threshold: anyOccurrence,
  },
  [ALARM.providerThrottledRate]: {
    description:
      'Providers keep throttling sends: the configured or derived send rates are above what the account grants (other senders share it, or a quota was lowered).',
    metric: (s) =>
      new cloudwatch.MathExpression({
        expression: 'IF((throttled + sent) > 0, 100 * throttled / (throttled + sent), 0)',
        usingMetrics: {
          throttled: s.metrics.sendingFunctions(METRIC.ProviderThrottled, 'throttled'),
          sent: s.metrics.sendingFunctions(METRIC.Sent, 'sent'),
        },
        label: 'Provider throttled %',
        period: s.settings.period,
      }),
    threshold: (s) => s.settings.providerThrottledRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.rateLimitedDeferralSustained]: {
    description:
      "The send-rate governor has deferred messages in every period for a long time: demand stays above the account's send rate and a backlog builds.",
    metric: (s) => s.metrics.sendingFunctions(METRIC.RateLimitedDeferral, 'deferred'),
    threshold: anyOccurrence,
    evaluationPeriods: (s) => sustainedPeriods(s.settings.sustainedRateLimiting, s.settings.period),
  },
  [ALARM.providerErrorUnrecognised]: {
    description:
      'A provider refused a send with an error it does not document for the call: retried, and dead-lettered with its reason after maxReceiveCount receives.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.ProviderErrorUnrecognised, 'unrecognised'),
    threshold: anyOccurrence,
  },
  [ALARM.sesBounceRate]: {
    description:
      "The configuration set's SES bounce rate is past the warning level: SES reviews the account at 5% and may pause its sending at 10%.",
    metric: (s) => sesReputation(s, 'Reputation.BounceRate'),
    // SES publishes the rate as a fraction.
    threshold: (s) => s.settings.sesBounceRatePercent / 100,
  },
  [ALARM.sesComplaintRate]: {
    description:
      "The configuration set's SES complaint rate is past the warning level: SES reviews the account at 0.1% and may pause its sending at 0.5%.",
    metric: (s) => sesReputation(s, 'Reputation.ComplaintRate'),
    threshold: (s) => s.settings.sesComplaintRatePercent / 100,
  },
  [ALARM.sesBulkBounceRate]: {
    description:
      "The bulk lane's configuration set (its SES tenant's mail) bounces past the warning level: its tenant's reputation policy (strict by default) may pause marketing mail; login codes send from the urgent tenant.",
    metric: (s) => sesReputation(s, 'Reputation.BounceRate', s.bulkConfigurationSetName),
    threshold: (s) => s.settings.sesBounceRatePercent / 100,
    when: (s) => s.bulkConfigurationSetName !== undefined,
  },
  [ALARM.sesBulkComplaintRate]: {
    description:
      "The bulk lane's configuration set (its SES tenant's mail) draws complaints past the warning level: its tenant's reputation policy (strict by default) may pause marketing mail; login codes send from the urgent tenant.",
    metric: (s) => sesReputation(s, 'Reputation.ComplaintRate', s.bulkConfigurationSetName),
    threshold: (s) => s.settings.sesComplaintRatePercent / 100,
    when: (s) => s.bulkConfigurationSetName !== undefined,
  },
  [ALARM.sesBulkTenantRefusing]: {
    description:
      "SES refused the bulk tenant's e-mail until an operator acts (its sending paused by its reputation policy or by hand, or a resource not associated with it): marketing e-mail backs off and is retried; login codes and order updates send from the urgent tenant.",
    // The bulk tenant's sending status as the senders meet it: SES publishes no CloudWatch metric of a tenant's status,
    // and a paused tenant's every send is refused (SendingPausedException), counted per message class.
    metric: (s) => s.metrics.emailOfClasses(METRIC.ProviderConfigurationFault, s.bulkEmailClasses ?? [], 'bulk', 'Bulk tenant e-mails refused for configuration'),
    threshold: anyOccurrence,
    when: (s) => (s.bulkEmailClasses ?? []).length > 0,
  },
  [ALARM.settledByWait]: {
    description:
      'Ambiguous messages were settled by their class\'s evidence wait running out, not by evidence (resent: possible duplicates; or given up), more than 10 in an hour: the provider\'s events are not reaching the ledger (see the SES and SMS events queues).',
    metric: (s) => s.metrics.atPeriod(HOUR).sendingFunctions(METRIC.SettledByWait, 'byWait'),
    threshold: () => SETTLED_BY_WAIT_PER_HOUR,
  },
  [ALARM.smsSuccessRate]: {
    description: "The account's SMS delivery success rate stayed low for two hours: SNS accepted SMS that the carriers did not deliver.",
    metric: () =>
      new cloudwatch.Metric({ namespace: 'AWS/SNS', metricName: 'SMSSuccessRate', statistic: cloudwatch.Stats.AVERAGE, period: HOUR }),
    threshold: (s) => s.settings.smsSuccessRatePercent / 100,
    evaluationPeriods: () => 2,
    comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    // SNS's account metric: texts sent through End User Messaging are not in it.
    when: smsThroughSns,
  },
} satisfies AlarmGroup;
