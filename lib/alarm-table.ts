import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { METRIC, SERVICE, type MetricName } from '../functions/core/metric-names';
import type { NotifierMetrics } from './metrics';
import type { ResolvedAlarmSettings } from './notifier-settings';

/** The notifier's functions other than the lanes' senders, by role. */
export interface NotifierFunctions {
  /** The scheduled reclaimer. */
  readonly reclaimer: lambda.IFunction;
  /** The delivery-status consumer. */
  readonly status: lambda.IFunction;
}

/** One sender lane, as the alarms and the dashboard read it. */
export interface AlarmLane {
  /** `urgent`, `bulk` or `single`. */
  readonly name: string;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly sender: lambda.IFunction;
}

/** What an alarm row reads: the notifier's resources, its own metrics and the resolved thresholds. */
export interface AlarmSources {
  /** The notifier's own metrics, in its namespace, at the alarm period. */
  readonly metrics: NotifierMetrics;
  /** The sender lanes (one without lanes), each with its queue pair and sender. */
  readonly lanes: readonly AlarmLane[];
  /**
   * The event topic that routes into the lanes.
   * @default - none (no lanes)
   */
  readonly eventTopic?: sns.ITopic;
  /** The status function's on-failure destination. */
  readonly statusFailedEventQueue: sqs.IQueue;
  /** The dead-letter queue of the SES event rule's target. */
  readonly sesEventRuleDeadLetterQueue: sqs.IQueue;
  /** The notifier's functions. */
  readonly functions: NotifierFunctions;
  /** The send ledger. */
  readonly table: dynamodb.ITable;
  /** Names of the ledger's global secondary indexes. */
  readonly ledgerIndexNames: readonly string[];
  /** Name of the SES configuration set every e-mail is sent with (its reputation metrics are the stack's own). */
  readonly configurationSetName: string;
  /** Whether the notifier sends SMS (the SMS alarms exist only then). */
  readonly smsEnabled: boolean;
  /** Thresholds and periods, defaults applied. */
  readonly settings: ResolvedAlarmSettings;
}

/**
 * One alarm: what it watches and when it fires. Every alarm notifies the alarm topic on ALARM and OK, fires
 * when the metric is above the threshold (unless `comparison` says otherwise) and treats missing data as
 * not breaching (EMF metrics exist only when emitted: no datapoint, no such event).
 */
export interface AlarmSpec {
  /** What it means when it fires; the runbook link is appended. */
  readonly description: string;
  readonly metric: (s: AlarmSources) => cloudwatch.IMetric;
  readonly threshold: (s: AlarmSources) => number;
  /**
   * Consecutive breaching periods before it fires (all of them must breach).
   * @default 1
   */
  readonly evaluationPeriods?: (s: AlarmSources) => number;
  /**
   * How the metric is compared with the threshold.
   * @default cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD
   */
  readonly comparison?: cloudwatch.ComparisonOperator;
  /**
   * Whether this notifier has the alarm (e.g. the SMS alarms only when SMS is enabled).
   * @default - always
   */
  readonly when?: (s: AlarmSources) => boolean;
}

/** Names of the alarms (keys of `IdempotentNotifier.alarms`); each has a runbook entry: {@link runbookLink}. */
export const ALARM = {
  duplicateSuppressedRate: 'DuplicateSuppressedRate',
  resentAfterAmbiguity: 'ResentAfterAmbiguity',
  gaveUpAfterAmbiguity: 'GaveUpAfterAmbiguity',
  ambiguityLoopStopped: 'AmbiguityLoopStopped',
  permanentFailureRate: 'PermanentFailureRate',
  suppressedRate: 'SuppressedRate',
  limitStoreError: 'LimitStoreError',
  invalidEvent: 'InvalidEvent',
  deadLetterQueueNotEmpty: 'DeadLetterQueueNotEmpty',
  oldestMessageAge: 'OldestMessageAge',
  stalePendingFound: 'StalePendingFound',
  senderErrors: 'SenderErrors',
  senderThrottles: 'SenderThrottles',
  reclaimerErrors: 'ReclaimerErrors',
  reclaimerThrottles: 'ReclaimerThrottles',
  statusErrors: 'StatusErrors',
  statusThrottles: 'StatusThrottles',
  statusFailedEvents: 'StatusFailedEvents',
  deliveryStatusInvalid: 'DeliveryStatusInvalid',
  smsMonthToDateSpend: 'SmsMonthToDateSpend',
  providerConfigurationFault: 'ProviderConfigurationFault',
  providerQuotaExhausted: 'ProviderQuotaExhausted',
  providerThrottledRate: 'ProviderThrottledRate',
  rateLimitedDeferralSustained: 'RateLimitedDeferralSustained',
  providerErrorUnrecognised: 'ProviderErrorUnrecognised',
  backlogAgeNearLimit: 'BacklogAgeNearLimit',
  sesBounceRate: 'SesBounceRate',
  sesComplaintRate: 'SesComplaintRate',
  lateBounces: 'LateBounces',
  lateComplaints: 'LateComplaints',
  ledgerErrors: 'LedgerErrors',
  ledgerThrottled: 'LedgerThrottled',
  smsSuccessRate: 'SmsSuccessRate',
  sesEventRuleDeadLetters: 'SesEventRuleDeadLetters',
  unroutedEvents: 'UnroutedEvents',
} as const;

/** Name of one of the notifier's alarms. */
export type AlarmName = (typeof ALARM)[keyof typeof ALARM];

/** The page of this repository that holds the alarm runbook, one heading per alarm. */
export const RUNBOOK_PAGE = 'docs/operations.md';

/**
 * Where an alarm's runbook entry is, as its description names it: the page and the anchor GitHub gives the
 * alarm's heading (an alarm name is letters only, so its anchor is the name in lower case).
 * `test/docs/links.test.ts` checks that every one of these anchors exists.
 */
export function runbookLink(name: AlarmName): string {
  return `${RUNBOOK_PAGE}#${name.toLowerCase()}`;
}

/**
 * Periods the backlog must stay above its threshold: `ApproximateAgeOfOldestMessage` drops whenever the
 * oldest message it counts is received a third time, so one period alone could flap.
 */
export const BACKLOG_AGE_EVALUATION_PERIODS = 3;

/** How many `period`s make `sustained` (the check is in `alarmOptionViolations`). */
function sustainedPeriods(sustained: Duration, period: Duration): number {
  return Math.max(1, Math.round(sustained.toSeconds() / period.toSeconds()));
}

const sender = (s: AlarmSources, name: MetricName): cloudwatch.Metric => s.metrics.of(SERVICE.sender, name);

/** 100 x part / (part + Sent) of the sender. */
const senderRatePercent = (s: AlarmSources, part: MetricName, label: string): cloudwatch.MathExpression =>
  new cloudwatch.MathExpression({
    expression: 'IF((FILL(part, 0) + FILL(sent, 0)) > 0, 100 * FILL(part, 0) / (FILL(part, 0) + FILL(sent, 0)), 0)',
    usingMetrics: { part: sender(s, part), sent: sender(s, METRIC.Sent) },
    label,
    period: s.settings.period,
  });

const visibleMessages = (s: AlarmSources, queue: sqs.IQueue): cloudwatch.Metric =>
  queue.metricApproximateNumberOfMessagesVisible({ period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM });

/**
 * One metric per lane, combined: with one lane the metric itself (the alarm of the stack before lanes),
 * else their sum or their maximum, point by point.
 */
function acrossLanes(s: AlarmSources, make: (lane: AlarmLane) => cloudwatch.Metric, combine: 'sum' | 'max'): cloudwatch.IMetric {
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

const oldestMessageAge = (s: AlarmSources): cloudwatch.IMetric =>
  acrossLanes(s, (lane) => lane.queue.metricApproximateAgeOfOldestMessage({ period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM }), 'max');

const functionErrors = (fn: (f: NotifierFunctions) => lambda.IFunction) => (s: AlarmSources) =>
  fn(s.functions).metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM });
const functionThrottles = (fn: (f: NotifierFunctions) => lambda.IFunction) => (s: AlarmSources) =>
  fn(s.functions).metricThrottles({ period: s.settings.period, statistic: cloudwatch.Stats.SUM });
const senderErrors = (s: AlarmSources) =>
  acrossLanes(s, (lane) => lane.sender.metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }), 'sum');
const senderThrottles = (s: AlarmSources) =>
  acrossLanes(s, (lane) => lane.sender.metricThrottles({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }), 'sum');

/**
 * Events the topic's lane filters all refused (a body that is not a JSON object): every routed event is
 * filtered out by exactly the other lane's subscription, so filtered-out beyond the published count is unrouted.
 */
const unroutedEvents = (s: AlarmSources, topic: sns.ITopic): cloudwatch.IMetric =>
  new cloudwatch.MathExpression({
    expression: 'MAX([FILL(filtered, 0) + FILL(invalidBody, 0) - FILL(published, 0), 0])',
    usingMetrics: {
      filtered: topic.metricNumberOfNotificationsFilteredOut({ period: s.settings.period }),
      invalidBody: topic.metric('NumberOfNotificationsFilteredOut-InvalidMessageBody', { period: s.settings.period, statistic: cloudwatch.Stats.SUM }),
      published: topic.metricNumberOfMessagesPublished({ period: s.settings.period }),
    },
    label: 'events no lane accepted',
    period: s.settings.period,
  });

/** Fires on any occurrence in one period. */
const anyOccurrence = (): number => 0;

/** SES and SNS update account and reputation metrics about hourly: these alarms look at whole hours. */
const HOUR = Duration.hours(1);

const sesReputation = (s: AlarmSources, metricName: 'Reputation.BounceRate' | 'Reputation.ComplaintRate'): cloudwatch.Metric =>
  new cloudwatch.Metric({
    namespace: 'AWS/SES',
    metricName,
    // Published per configuration set when its reputation metrics are on (the created set has them on).
    dimensionsMap: { 'ses:configuration-set': s.configurationSetName },
    statistic: cloudwatch.Stats.MAXIMUM,
    period: HOUR,
  });

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

const smsEnabled = (s: AlarmSources): boolean => s.smsEnabled;

/**
 * Every alarm of the notifier, one row each: the alarms, the dashboard's alarm widget and the runbook's
 * headings (checked by `test/docs/runbook.test.ts`) are all made from or checked against this table.
 * To add an alarm: a name in {@link ALARM}, a row here (the type requires one per name), a runbook entry.
 */
export const ALARM_TABLE: { readonly [N in AlarmName]: AlarmSpec } = {
  [ALARM.duplicateSuppressedRate]: {
    description:
      'Redelivered messages were suppressed by the ledger more often than expected: the broker is redelivering (slow or failing sender, visibility timeout too short, producer retries).',
    metric: (s) => senderRatePercent(s, METRIC.DuplicateSuppressed, 'Duplicate suppressed %'),
    threshold: (s) => s.settings.duplicateSuppressedRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.resentAfterAmbiguity]: {
    description: 'A message whose first send had an unknown outcome was sent again: a recipient may have received it twice.',
    metric: (s) => sender(s, METRIC.ResentAfterAmbiguity),
    threshold: anyOccurrence,
  },
  [ALARM.gaveUpAfterAmbiguity]: {
    description: 'A message whose send had an unknown outcome was not sent again: a recipient may have received nothing.',
    metric: (s) => sender(s, METRIC.GaveUpAfterAmbiguity),
    threshold: anyOccurrence,
  },
  [ALARM.ambiguityLoopStopped]: {
    description:
      'Provider calls of one message failed the same way, with no answer from the provider, on 3 consecutive attempts: it was ended UNKNOWN instead of sent again. A recipient may have received nothing, or up to 3 copies; the cause repeats (a fault of our own or a provider that never answers).',
    metric: (s) => s.metrics.sendingFunctions(METRIC.AmbiguityLoopStopped, 'loop'),
    threshold: anyOccurrence,
  },
  [ALARM.permanentFailureRate]: {
    description:
      'Providers rejected messages permanently (bad addresses, unverified identity, opted-out numbers, disabled endpoints).',
    metric: (s) => senderRatePercent(s, METRIC.PermanentFailure, 'Permanent failure %'),
    threshold: (s) => s.settings.permanentFailureRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
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
  [ALARM.invalidEvent]: {
    description: 'A producer sent an event that can never be processed; it was moved to the dead-letter queue with its reason.',
    metric: (s) => sender(s, METRIC.InvalidEvent),
    threshold: anyOccurrence,
  },
  [ALARM.deadLetterQueueNotEmpty]: {
    description: 'The dead-letter queue holds messages: invalid events or messages that exhausted their receives.',
    metric: (s) => acrossLanes(s, (lane) => visibleMessages(s, lane.deadLetterQueue), 'sum'),
    threshold: anyOccurrence,
  },
  [ALARM.oldestMessageAge]: {
    description: 'Messages wait in the main queue longer than expected: the sender is failing, throttled or too slow.',
    metric: oldestMessageAge,
    threshold: (s) => s.settings.oldestMessageAge.toSeconds(),
  },
  [ALARM.stalePendingFound]: {
    description: 'The reclaimer found PENDING ledger rows whose claim expired: a sender attempt died mid-send.',
    metric: (s) => s.metrics.of(SERVICE.reclaimer, METRIC.StalePendingFound),
    threshold: anyOccurrence,
  },
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
  [ALARM.statusFailedEvents]: {
    description:
      'Delivery-status events failed after all retries and wait in the failed-events queue: their rows lack evidence until redriven.',
    metric: (s) => visibleMessages(s, s.statusFailedEventQueue),
    threshold: anyOccurrence,
  },
  [ALARM.sesEventRuleDeadLetters]: {
    description:
      "EventBridge could not hand SES events to the delivery-status function and left them in the rule target's dead-letter queue: their rows lack that evidence until redriven.",
    metric: (s) => visibleMessages(s, s.sesEventRuleDeadLetterQueue),
    threshold: anyOccurrence,
  },
  [ALARM.deliveryStatusInvalid]: {
    description:
      'The delivery-status function received input it cannot read as an SES event or an SNS SMS delivery log; it was ignored.',
    metric: (s) => s.metrics.of(SERVICE.status, METRIC.DeliveryStatusInvalid),
    threshold: anyOccurrence,
  },
  [ALARM.smsMonthToDateSpend]: {
    description: 'SMS spend this month approaches the monthly spend limit; SNS stops sending SMS when it is reached.',
    metric: (s) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SNS',
        metricName: 'SMSMonthToDateSpentUSD',
        statistic: cloudwatch.Stats.MAXIMUM,
        period: s.settings.period,
      }),
    threshold: (s) => s.settings.smsSpendThresholdUsd,
    when: smsEnabled,
  },
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
  [ALARM.backlogAgeNearLimit]: {
    description:
      "The queue backlog does not drain at the account's send rate: its oldest messages approach the dead-letter queue or expiry.",
    metric: oldestMessageAge,
    threshold: (s) => s.settings.backlogAge.toSeconds({ integral: false }),
    evaluationPeriods: () => BACKLOG_AGE_EVALUATION_PERIODS,
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
  [ALARM.lateBounces]: {
    description: 'E-mails SES had accepted bounced (recorded on their ledger rows by the status Lambda): recipients\' addresses have gone bad.',
    metric: (s) => s.metrics.atPeriod(HOUR).of(SERVICE.status, METRIC.LateBounce),
    threshold: (s) => s.settings.lateBouncesPerHour,
  },
  [ALARM.lateComplaints]: {
    description: 'Recipients marked e-mails as spam (complaints recorded on their ledger rows by the status Lambda).',
    metric: (s) => s.metrics.atPeriod(HOUR).of(SERVICE.status, METRIC.LateComplaint),
    threshold: (s) => s.settings.lateComplaintsPerHour,
  },
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
  [ALARM.smsSuccessRate]: {
    description: "The account's SMS delivery success rate stayed low for two hours: SNS accepted SMS that the carriers did not deliver.",
    metric: () =>
      new cloudwatch.Metric({ namespace: 'AWS/SNS', metricName: 'SMSSuccessRate', statistic: cloudwatch.Stats.AVERAGE, period: HOUR }),
    threshold: (s) => s.settings.smsSuccessRatePercent / 100,
    evaluationPeriods: () => 2,
    comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    when: smsEnabled,
  },
  [ALARM.unroutedEvents]: {
    description:
      "Events published to the event topic matched no lane's filter (a body that is not a JSON object with a string messageClass) and were not delivered: the producer must publish again.",
    metric: (s) => unroutedEvents(s, s.eventTopic!),
    threshold: anyOccurrence,
    when: (s) => s.eventTopic !== undefined,
  },
};
