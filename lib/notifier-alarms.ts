import { Annotations, Aws, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, type MetricName } from '../functions/core/metric-names';
import { DEFAULT_SUSTAINED_RATE_LIMITING, type NotifierAlarmOptions } from './alarm-options';
import { DEFAULT_METRIC_PERIOD, SERVICE, notifierMetric, sendingFunctionsMetric } from './metrics';

/** The notifier's functions, by role. */
export interface NotifierFunctions {
  /** The SQS consumer. */
  readonly sender: lambda.IFunction;
  /** The scheduled reclaimer. */
  readonly reclaimer: lambda.IFunction;
  /** The delivery-status consumer. */
  readonly status: lambda.IFunction;
}

/** What {@link NotifierAlarms} watches. */
export interface NotifierAlarmsProps extends NotifierAlarmOptions {
  /** The main queue. */
  readonly queue: sqs.IQueue;
  /** The dead-letter queue. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The status function's on-failure destination. */
  readonly statusFailedEventQueue: sqs.IQueue;
  /** The notifier's functions. */
  readonly functions: NotifierFunctions;
  /** Alarm when `AWS/SNS SMSMonthToDateSpentUSD` exceeds this (USD). */
  readonly smsSpendThresholdUsd: number;
  /** Threshold of the `BacklogAgeNearLimit` alarm (`backlogAge`, or its default derived from the queue settings). */
  readonly backlogAgeThreshold: Duration;
}

/** Names of the alarms (keys of {@link NotifierAlarms.alarms}); each has a runbook entry: {@link runbookLink}. */
export const ALARM = {
  duplicateSuppressedRate: 'DuplicateSuppressedRate',
  resentAfterAmbiguity: 'ResentAfterAmbiguity',
  gaveUpAfterAmbiguity: 'GaveUpAfterAmbiguity',
  permanentFailureRate: 'PermanentFailureRate',
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
  suppressedRate: 'SuppressedRate',
  limitStoreError: 'LimitStoreError',
  backlogAgeNearLimit: 'BacklogAgeNearLimit',
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

/** The notifier's alarms, all wired to one SNS topic. */
export class NotifierAlarms extends Construct {
  /** The topic alarms notify. */
  public readonly topic: sns.ITopic;
  /** Every alarm, by name. */
  public readonly alarms: Readonly<Record<AlarmName, cloudwatch.Alarm>>;

  constructor(scope: Construct, id: string, props: NotifierAlarmsProps) {
    super(scope, id);
    const period = props.period ?? DEFAULT_METRIC_PERIOD;

    let created: sns.Topic | undefined;
    if (props.topic) {
      this.topic = props.topic;
    } else {
      // Not KMS-encrypted: alarm notifications carry alarm names and metric values only, and CloudWatch
      // cannot publish to a topic encrypted with the AWS managed SNS key. Pass `topic` to use your own.
      created = new sns.Topic(this, 'Topic', { displayName: 'Idempotent notifier alarms', enforceSSL: true });
      this.topic = created;
    }
    const emails = props.emails ?? [];
    for (const email of emails) this.topic.addSubscription(new snsSubscriptions.EmailSubscription(email));
    if (!props.topic && emails.length === 0) {
      Annotations.of(this).addWarningV2(
        NO_ALARM_SUBSCRIBER_WARNING,
        'No alarm subscriber: the alarm topic has no subscription, so no alarm reaches a person. ' +
          'Set notifier:alarmEmails (or alarms.emails), or notifier:alarmTopicArn (or alarms.topic) to an existing topic.',
      );
    }
    const action = new cloudwatchActions.SnsAction(this.topic);

    const alarm = (
      name: AlarmName,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
      evaluationPeriods = 1,
    ): cloudwatch.Alarm => {
      const created = new cloudwatch.Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods,
        datapointsToAlarm: evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // No datapoint means no such event happened (EMF metrics exist only when emitted).
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${description} Runbook: ${runbookLink(name)}`,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      return created;
    };
    const sender = (name: MetricName): cloudwatch.Metric =>
      notifierMetric(SERVICE.sender, name, period);
    const ratePercent = (part: MetricName, label: string): cloudwatch.MathExpression =>
      new cloudwatch.MathExpression({
        expression: 'IF((FILL(part, 0) + FILL(sent, 0)) > 0, 100 * FILL(part, 0) / (FILL(part, 0) + FILL(sent, 0)), 0)',
        usingMetrics: { part: sender(part), sent: sender(METRIC.Sent) },
        label,
        period,
      });
    const rateEvaluationPeriods = props.rateEvaluationPeriods ?? 3;
    const sendingFunctions = (name: MetricName, id: string): cloudwatch.MathExpression =>
      sendingFunctionsMetric(name, id, period);
    const fnMetric = (fn: lambda.IFunction, which: 'Errors' | 'Throttles'): cloudwatch.Metric => {
      const options = { period, statistic: cloudwatch.Stats.SUM };
      return which === 'Errors' ? fn.metricErrors(options) : fn.metricThrottles(options);
    };
    /** A function's Errors and Throttles alarms, each firing on any occurrence in one period. */
    const healthAlarms = <E extends AlarmName, T extends AlarmName>(
      errorsName: E,
      throttlesName: T,
      fn: lambda.IFunction,
      text: { errors: string; throttles: string },
    ): Record<E | T, cloudwatch.Alarm> =>
      ({
        [errorsName]: alarm(errorsName, fnMetric(fn, 'Errors'), 0, text.errors),
        [throttlesName]: alarm(throttlesName, fnMetric(fn, 'Throttles'), 0, text.throttles),
      }) as Record<E | T, cloudwatch.Alarm>;

    this.alarms = {
      [ALARM.duplicateSuppressedRate]: alarm(
        ALARM.duplicateSuppressedRate,
        ratePercent(METRIC.DuplicateSuppressed, 'Duplicate suppressed %'),
        props.duplicateSuppressedRatePercent ?? 5,
        'Redelivered messages were suppressed by the ledger more often than expected: the broker is redelivering (slow or failing sender, visibility timeout too short, producer retries).',
        rateEvaluationPeriods,
      ),
      [ALARM.resentAfterAmbiguity]: alarm(
        ALARM.resentAfterAmbiguity,
        sender(METRIC.ResentAfterAmbiguity),
        0,
        'A message whose first send had an unknown outcome was sent again: a recipient may have received it twice.',
      ),
      [ALARM.gaveUpAfterAmbiguity]: alarm(
        ALARM.gaveUpAfterAmbiguity,
        sender(METRIC.GaveUpAfterAmbiguity),
        0,
        'A message whose send had an unknown outcome was not sent again: a recipient may have received nothing.',
      ),
      [ALARM.permanentFailureRate]: alarm(
        ALARM.permanentFailureRate,
        ratePercent(METRIC.PermanentFailure, 'Permanent failure %'),
        props.permanentFailureRatePercent ?? 5,
        'Providers rejected messages permanently (bad addresses, unverified identity, opted-out numbers, disabled endpoints).',
        rateEvaluationPeriods,
      ),
      [ALARM.suppressedRate]: alarm(
        ALARM.suppressedRate,
        ratePercent(METRIC.Suppressed, 'Suppressed %'),
        props.suppressedRatePercent ?? 10,
        'Limits or destination rules stopped an unusual share of messages (never sent): a likely SMS-pumping or sign-up attack, or a producer in a loop. The metric Suppressed has the reason and class as dimensions.',
        rateEvaluationPeriods,
      ),
      [ALARM.limitStoreError]: alarm(
        ALARM.limitStoreError,
        sendingFunctions(METRIC.LimitStoreError, 'limitStoreError'),
        0,
        'The limit counters could not be written (DynamoDB throttled or unreachable): messages of limited classes wait unsent, their records backing off.',
      ),
      [ALARM.invalidEvent]: alarm(
        ALARM.invalidEvent,
        sender(METRIC.InvalidEvent),
        0,
        'A producer sent an event that can never be processed; it was moved to the dead-letter queue with its reason.',
      ),
      [ALARM.deadLetterQueueNotEmpty]: alarm(
        ALARM.deadLetterQueueNotEmpty,
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period,
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        0,
        'The dead-letter queue holds messages: invalid events or messages that exhausted their receives.',
      ),
      [ALARM.oldestMessageAge]: alarm(
        ALARM.oldestMessageAge,
        props.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
        (props.oldestMessageAge ?? Duration.minutes(15)).toSeconds(),
        'Messages wait in the main queue longer than expected: the sender is failing, throttled or too slow.',
      ),
      [ALARM.stalePendingFound]: alarm(
        ALARM.stalePendingFound,
        notifierMetric(SERVICE.reclaimer, METRIC.StalePendingFound, period),
        0,
        'The reclaimer found PENDING ledger rows whose claim expired: a sender attempt died mid-send.',
      ),
      ...healthAlarms(ALARM.senderErrors, ALARM.senderThrottles, props.functions.sender, {
        errors: 'The sender function failed whole invocations (crash, timeout, configuration error).',
        throttles: 'The sender function was throttled (account concurrency exhausted).',
      }),
      ...healthAlarms(ALARM.reclaimerErrors, ALARM.reclaimerThrottles, props.functions.reclaimer, {
        errors: 'The reclaimer function failed whole invocations.',
        throttles: 'The reclaimer function was throttled.',
      }),
      ...healthAlarms(ALARM.statusErrors, ALARM.statusThrottles, props.functions.status, {
        errors:
          'The delivery-status function failed whole invocations (ledger errors, configuration error); Lambda retries them twice, then sends the events to the failed-events queue.',
        throttles: 'The delivery-status function was throttled; delivery evidence arrives late.',
      }),
      [ALARM.statusFailedEvents]: alarm(
        ALARM.statusFailedEvents,
        props.statusFailedEventQueue.metricApproximateNumberOfMessagesVisible({
          period,
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        0,
        'Delivery-status events failed after all retries and wait in the failed-events queue: their rows lack evidence until redriven.',
      ),
      [ALARM.deliveryStatusInvalid]: alarm(
        ALARM.deliveryStatusInvalid,
        notifierMetric(SERVICE.status, METRIC.DeliveryStatusInvalid, period),
        0,
        'The delivery-status function received input it cannot read as an SES event or an SNS SMS delivery log; it was ignored.',
      ),
      [ALARM.smsMonthToDateSpend]: alarm(
        ALARM.smsMonthToDateSpend,
        new cloudwatch.Metric({
          namespace: 'AWS/SNS',
          metricName: 'SMSMonthToDateSpentUSD',
          statistic: cloudwatch.Stats.MAXIMUM,
          period,
        }),
        props.smsSpendThresholdUsd,
        'SMS spend this month approaches the monthly spend limit; SNS stops sending SMS when it is reached.',
      ),
      [ALARM.providerConfigurationFault]: alarm(
        ALARM.providerConfigurationFault,
        sendingFunctions(METRIC.ProviderConfigurationFault, 'fault'),
        0,
        'A provider refused sends until an operator acts (SES sending paused or account suspended, unverified From identity, missing configuration set; SNS authorization or KMS). The records back off and are retried; nothing is sent until it is fixed.',
      ),
      [ALARM.providerQuotaExhausted]: alarm(
        ALARM.providerQuotaExhausted,
        sendingFunctions(METRIC.ProviderQuotaExhausted, 'quota'),
        0,
        'SES refused e-mails because the daily sending quota (Max24HourSend) is spent: e-mail is paused until the rolling 24-hour window frees quota.',
      ),
      [ALARM.providerThrottledRate]: alarm(
        ALARM.providerThrottledRate,
        new cloudwatch.MathExpression({
          expression: 'IF((throttled + sent) > 0, 100 * throttled / (throttled + sent), 0)',
          usingMetrics: {
            throttled: sendingFunctions(METRIC.ProviderThrottled, 'throttled'),
            sent: sendingFunctions(METRIC.Sent, 'sent'),
          },
          label: 'Provider throttled %',
          period,
        }),
        props.providerThrottledRatePercent ?? 1,
        'Providers keep throttling sends: the configured or derived send rates are above what the account grants (other senders share it, or a quota was lowered).',
        rateEvaluationPeriods,
      ),
      [ALARM.rateLimitedDeferralSustained]: alarm(
        ALARM.rateLimitedDeferralSustained,
        sendingFunctions(METRIC.RateLimitedDeferral, 'deferred'),
        0,
        'The send-rate governor has deferred messages in every period for a long time: demand stays above the account\'s send rate and a backlog builds.',
        sustainedPeriods(props.sustainedRateLimiting ?? DEFAULT_SUSTAINED_RATE_LIMITING, period),
      ),
      [ALARM.providerErrorUnrecognised]: alarm(
        ALARM.providerErrorUnrecognised,
        sendingFunctions(METRIC.ProviderErrorUnrecognised, 'unrecognised'),
        0,
        'A provider refused a send with an error it does not document for the call: retried, and dead-lettered with its reason after maxReceiveCount receives.',
      ),
      [ALARM.backlogAgeNearLimit]: alarm(
        ALARM.backlogAgeNearLimit,
        props.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
        props.backlogAgeThreshold.toSeconds({ integral: false }),
        'The queue backlog does not drain at the account\'s send rate: its oldest messages approach the dead-letter queue or expiry.',
        BACKLOG_AGE_EVALUATION_PERIODS,
      ),
    };

    // A topic policy replaces SNS's default one, and `enforceSSL` creates a policy: without this statement
    // CloudWatch may not publish and no alarm is ever delivered.
    created?.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowThisStacksAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnEquals: { 'aws:SourceArn': Object.values(this.alarms).map((a) => a.alarmArn) },
        },
      }),
    );
  }
}

/**
 * Periods the backlog must stay above its threshold: `ApproximateAgeOfOldestMessage` drops whenever the
 * oldest message it counts is received a third time, so one period alone could flap.
 */
export const BACKLOG_AGE_EVALUATION_PERIODS = 3;

/** How many `period`s make `sustained` (the check is in {@link alarmOptionViolations}). */
function sustainedPeriods(sustained: Duration, period: Duration): number {
  return Math.max(1, Math.round(sustained.toSeconds() / period.toSeconds()));
}

/** Id of the synth warning printed when no alarm reaches a person. */
export const NO_ALARM_SUBSCRIBER_WARNING = '@idempotent-notifier/alarms:no-subscriber';
