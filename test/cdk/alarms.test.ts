import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM, type AlarmName, NO_ALARM_SUBSCRIBER_WARNING, runbookLink } from '../../lib/notifier-alarms';
import { IdempotentNotifier } from '../../lib/notifier';
import { BASE_PROPS, EUM_PROPS, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
/** The alarms of a notifier that texts through SNS (the default): all but End User Messaging's own. */
const SNS_ALARMS = Object.values(ALARM).filter((name) => name !== ALARM.smsEventDeadLetters && name !== ALARM.sesEventRuleDeadLetters);
/** A notifier that texts through End User Messaging: SNS's SMS success rate is not its, its events' dead letters are. */
const eumStack = synth(EUM_PROPS);
/** A notifier with the opt-in EventBridge route for SES events, and its dead-letter queue's alarm. */
const bridgeStack = synth({ sesEventBridgeRule: true });
const n = stack.notifier;
const alarmProps = (name: AlarmName, t = template, s = stack): Record<string, unknown> =>
  propertiesOf(t, s.notifier.alarms[name] ?? fail(name));
function fail(name: string): never {
  throw new Error(`no alarm ${name}`);
}

const topicRef = { Ref: logicalId(n.alarmTopic) };
/** This notifier's own namespace (test/cdk/metrics-namespace.test.ts pins its form). */
const NAMESPACE = n.metricsNamespace;

/** A metric alarm on one of the notifier's own metrics (its namespace, shared names), dimension service only. */
const custom = (metricName: string, service: 'sender' | 'reclaimer' | 'status') => ({
  Namespace: NAMESPACE,
  MetricName: metricName,
  Dimensions: [{ Name: 'service', Value: service }],
  Statistic: 'Sum',
  Period: 300,
});

describe('every alarm', () => {
  it('exists once per name, notifies the topic on ALARM and OK, and treats missing data as not breaching', () => {
    const all = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
    expect(Object.keys(all)).toHaveLength(SNS_ALARMS.length);
    expect(Object.keys(n.alarms).sort()).toEqual([...SNS_ALARMS].sort());
    expect(Object.keys(eumStack.stack.notifier.alarms).sort()).toEqual(
      Object.values(ALARM).filter((name) => name !== ALARM.smsSuccessRate && name !== ALARM.sesEventRuleDeadLetters).sort(),
    );
    // The opt-in EventBridge route brings its dead-letter queue's alarm.
    expect(Object.keys(synth({ sesEventBridgeRule: true }).stack.notifier.alarms)).toContain(ALARM.sesEventRuleDeadLetters);
    for (const alarm of Object.values(all)) {
      expect(alarm).toMatchObject({ AlarmActions: [topicRef], OKActions: [topicRef], TreatMissingData: 'notBreaching' });
    }
    // Every alarm fires above its threshold but the one on a success rate, which fires below it.
    for (const name of SNS_ALARMS) {
      expect(alarmProps(name)['ComparisonOperator'], name).toBe(
        name === ALARM.smsSuccessRate ? 'LessThanThreshold' : 'GreaterThanThreshold',
      );
    }
  });

  // That each link's anchor exists in the runbook page is checked in test/docs/links.test.ts.
  it.each(Object.values(ALARM))('%s names its own runbook entry in its description', (name) => {
    const own =
      name === ALARM.smsEventDeadLetters
        ? alarmProps(name, eumStack.template, eumStack.stack)
        : name === ALARM.sesEventRuleDeadLetters
          ? alarmProps(name, bridgeStack.template, bridgeStack.stack)
          : alarmProps(name);
    const description = String(own['AlarmDescription']);
    expect(description.endsWith(` Runbook: ${runbookLink(name)}`), description).toBe(true);
  });
});

describe('count alarms (> 0 in one 5-minute period)', () => {
  it.each([
    [ALARM.resentAfterAmbiguity, METRIC.ResentAfterAmbiguity, 'sender'],
    [ALARM.gaveUpAfterAmbiguity, METRIC.GaveUpAfterAmbiguity, 'sender'],
    [ALARM.invalidEvent, METRIC.InvalidEvent, 'sender'],
    [ALARM.keptLedgerWriteDropped, METRIC.KeptLedgerWriteDropped, 'sender'],
    [ALARM.stalePendingFound, METRIC.StalePendingFound, 'reclaimer'],
    [ALARM.deliveryStatusInvalid, METRIC.DeliveryStatusInvalid, 'status'],
    [ALARM.deliveryStatusFinalityUnstated, METRIC.DeliveryStatusFinalityUnstated, 'status'],
  ] as const)('%s watches %s of the %s', (alarm, metric, service) => {
    expect(alarmProps(alarm)).toMatchObject({
      ...custom(metric, service),
      Threshold: 0,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
    });
  });
});

describe('SettleBoundReached (review defect 3: nothing is retried forever)', () => {
  it('fires on one message ended at its bound by the sender or the reclaimer, in one 5-minute period', () => {
    const props = alarmProps(ALARM.settleBoundReached);
    expect(props).toMatchObject({ Threshold: 0, EvaluationPeriods: 1, DatapointsToAlarm: 1, ComparisonOperator: 'GreaterThanThreshold' });
    const metrics = props['Metrics'] as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } } }[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(boundSender, 0) + FILL(boundReclaimer, 0)');
    const watched = metrics.filter((m) => m.MetricStat).map((m) => [m.MetricStat!.Metric.MetricName, m.MetricStat!.Metric.Dimensions]);
    expect(watched).toEqual([
      [METRIC.SettleBoundReached, [{ Name: 'service', Value: 'sender' }]],
      [METRIC.SettleBoundReached, [{ Name: 'service', Value: 'reclaimer' }]],
    ]);
  });
});

describe('rate alarms', () => {
  it.each([
    [ALARM.duplicateSuppressedRate, METRIC.DuplicateSuppressed],
    [ALARM.permanentFailureRate, METRIC.PermanentFailure],
  ] as const)('%s is 100 x %s / (it + Sent) above 5%% for 3 periods', (alarm, metric) => {
    const props = alarmProps(alarm);
    expect(props).toMatchObject({ Threshold: 5, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    const metrics = props['Metrics'] as { Id: string; Expression?: string; MetricStat?: unknown; ReturnData?: boolean }[];
    const expression = metrics.find((m) => m.Expression);
    expect(expression?.Expression).toBe(
      'IF((FILL(part, 0) + FILL(sent, 0)) > 0, 100 * FILL(part, 0) / (FILL(part, 0) + FILL(sent, 0)), 0)',
    );
    const stat = (id: string) => metrics.find((m) => m.Id === id)?.MetricStat;
    const metricStat = (name: string) => ({
      Metric: { Namespace: NAMESPACE, MetricName: name, Dimensions: [{ Name: 'service', Value: 'sender' }] },
      Period: 300,
      Stat: 'Sum',
    });
    expect(stat('part')).toEqual(metricStat(metric));
    expect(stat('sent')).toEqual(metricStat(METRIC.Sent));
  });

  it('SuppressedRate (a likely attack) is 100 x Suppressed / (Suppressed + Sent) above 10% for 3 periods, configurable', () => {
    const props = alarmProps(ALARM.suppressedRate);
    expect(props).toMatchObject({ Threshold: 10, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    const metrics = props['Metrics'] as { Id: string; MetricStat?: { Metric: { MetricName: string } } }[];
    expect(metrics.find((m) => m.Id === 'part')?.MetricStat?.Metric.MetricName).toBe(METRIC.Suppressed);
    expect(String(props['AlarmDescription'])).toMatch(/SMS-pumping.*Runbook: docs\/operations\.md#suppressedrate/);
    const s = synth({ alarms: { suppressedRatePercent: 25 } });
    expect(alarmProps(ALARM.suppressedRate, s.template, s.stack)).toMatchObject({ Threshold: 25 });
  });

  it('takes thresholds and periods from props', () => {
    const s = synth({
      alarms: {
        duplicateSuppressedRatePercent: 12,
        permanentFailureRatePercent: 2,
        rateEvaluationPeriods: 2,
        period: Duration.minutes(1),
      },
    });
    expect(alarmProps(ALARM.duplicateSuppressedRate, s.template, s.stack)).toMatchObject({ Threshold: 12, EvaluationPeriods: 2 });
    expect(alarmProps(ALARM.permanentFailureRate, s.template, s.stack)).toMatchObject({ Threshold: 2, EvaluationPeriods: 2 });
    expect(alarmProps(ALARM.invalidEvent, s.template, s.stack)).toMatchObject({ Period: 60 });
  });
});

/** The stack without lanes: one queue pair, one sender (the alarms read them directly). */
const single = synth({ lanes: false });
/** An alarm's metric entries by id. */
const metricsOf = (props: Record<string, unknown>): Record<string, Record<string, unknown>> =>
  Object.fromEntries((props['Metrics'] as { Id: string }[]).map((m) => [m.Id, m as Record<string, unknown>]));
const queueMetric = (metricName: string, queue: Parameters<typeof logicalId>[0]) => ({
  Metric: { Namespace: 'AWS/SQS', MetricName: metricName, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue), 'QueueName'] } }] },
  Period: 300,
  Stat: 'Maximum',
});

describe('queue alarms', () => {
  it('fires when the dead-letter queue has visible messages', () => {
    expect(alarmProps(ALARM.deadLetterQueueNotEmpty, single.template, single.stack)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(single.stack.notifier.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 0,
    });
  });

  it("with lanes, fires when either lane's dead-letter queue has visible messages", () => {
    const props = alarmProps(ALARM.deadLetterQueueNotEmpty);
    expect(props).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    const metrics = metricsOf(props);
    expect(Object.values(metrics).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'FILL(urgent, 0) + FILL(bulk, 0)' }),
    ]);
    expect(metrics['urgent']?.['MetricStat']).toEqual(queueMetric('ApproximateNumberOfMessagesVisible', n.lanes[0]!.deadLetterQueue));
    expect(metrics['bulk']?.['MetricStat']).toEqual(queueMetric('ApproximateNumberOfMessagesVisible', n.lanes[1]!.deadLetterQueue));
  });

  it('fires when the oldest message in the main queue is older than 15 minutes (configurable)', () => {
    // Without SMS, marketing's quiet hours (texts only) hold nothing: the queue's own metric.
    const noSms = synth({ lanes: false, smsCountries: undefined, smsMonthlySpendLimitUsd: undefined });
    expect(alarmProps(ALARM.oldestMessageAge, noSms.template, noSms.stack)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(noSms.stack.notifier.queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 900,
    });
    const s = synth({ alarms: { oldestMessageAge: Duration.minutes(5) } });
    expect(alarmProps(ALARM.oldestMessageAge, s.template, s.stack)).toMatchObject({ Threshold: 300 });
  });

  it('with one queue and quiet hours (marketing texts), counts the queue\'s oldest age less the longest hold', () => {
    const props = alarmProps(ALARM.oldestMessageAge, single.template, single.stack);
    expect(props).toMatchObject({ Threshold: 900 });
    // Texting the US and GB: the 11-hour window, an hour for a change of the clocks, 6 hours of US zones (New
    // York UTC-4 in summer to Honolulu UTC-10) = 18 h.
    expect(Object.values(metricsOf(props)).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'MAX([FILL(single, 0) - 64800, 0])' }),
    ]);
    // Texting GB alone (one zone): the window and the hour, 12 h.
    const gb = synth({ lanes: false, smsCountries: ['GB'] });
    expect(Object.values(metricsOf(alarmProps(ALARM.oldestMessageAge, gb.template, gb.stack))).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'MAX([FILL(single, 0) - 43200, 0])' }),
    ]);
  });

  it("with lanes, watches the older of the two lanes' oldest messages, the bulk lane's less its quiet hours", () => {
    const props = alarmProps(ALARM.oldestMessageAge);
    expect(props).toMatchObject({ Threshold: 900 });
    const metrics = metricsOf(props);
    expect(Object.values(metrics).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'MAX([FILL(urgent, 0), FILL(bulk, 0) - 64800, 0])' }),
    ]);
    expect(metrics['urgent']?.['MetricStat']).toEqual(queueMetric('ApproximateAgeOfOldestMessage', n.lanes[0]!.queue));
    expect(metrics['bulk']?.['MetricStat']).toEqual(queueMetric('ApproximateAgeOfOldestMessage', n.lanes[1]!.queue));
  });

  it('UnroutedEvents fires when the event topic delivered an event to no lane (filtered out beyond the published count)', () => {
    const props = alarmProps(ALARM.unroutedEvents);
    expect(props).toMatchObject({ Threshold: 0, EvaluationPeriods: 1 });
    const metrics = metricsOf(props);
    expect(Object.values(metrics).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'MAX([FILL(filtered, 0) + FILL(invalidBody, 0) - FILL(published, 0), 0])' }),
    ]);
    const topic = { Name: 'TopicName', Value: { 'Fn::GetAtt': [logicalId(n.eventTopic!), 'TopicName'] } };
    expect(metrics['filtered']?.['MetricStat']).toMatchObject({ Metric: { Namespace: 'AWS/SNS', MetricName: 'NumberOfNotificationsFilteredOut', Dimensions: [topic] }, Stat: 'Sum' });
    expect(metrics['published']?.['MetricStat']).toMatchObject({ Metric: { Namespace: 'AWS/SNS', MetricName: 'NumberOfMessagesPublished', Dimensions: [topic] }, Stat: 'Sum' });
    expect(single.stack.notifier.alarms[ALARM.unroutedEvents]).toBeUndefined();
  });
});

describe('provider pace alarms', () => {
  const statOf = (metricName: string, service: 'sender' | 'reclaimer', period = 300) => ({
    Metric: { Namespace: NAMESPACE, MetricName: metricName, Dimensions: [{ Name: 'service', Value: service }] },
    Period: period,
    Stat: 'Sum',
  });
  /** Notifies the topic on ALARM and OK; no datapoint is no event. */
  const wired = { AlarmActions: [topicRef], OKActions: [topicRef], TreatMissingData: 'notBreaching', ComparisonOperator: 'GreaterThanThreshold' };

  it.each([
    [ALARM.providerConfigurationFault, METRIC.ProviderConfigurationFault, 'fault'],
    [ALARM.providerQuotaExhausted, METRIC.ProviderQuotaExhausted, 'quota'],
    [ALARM.providerErrorUnrecognised, METRIC.ProviderErrorUnrecognised, 'unrecognised'],
  ] as const)('%s fires on any %s of the sender or the reclaimer in one 5-minute period', (alarm, metric, id) => {
    const props = alarmProps(alarm);
    expect(props).toMatchObject({ ...wired, Threshold: 0, EvaluationPeriods: 1, DatapointsToAlarm: 1 });
    const metrics = metricsOf(props);
    expect(Object.values(metrics).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: `FILL(${id}Sender, 0) + FILL(${id}Reclaimer, 0)` }),
    ]);
    expect(metrics[`${id}Sender`]?.['MetricStat']).toEqual(statOf(metric, 'sender'));
    expect(metrics[`${id}Reclaimer`]?.['MetricStat']).toEqual(statOf(metric, 'reclaimer'));
  });

  it('ProviderThrottledRate fires when over 1% of sends are throttled for 3 periods of 5 minutes', () => {
    const props = alarmProps(ALARM.providerThrottledRate);
    expect(props).toMatchObject({ ...wired, Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    const metrics = metricsOf(props);
    const returned = Object.values(metrics).filter((m) => m['ReturnData'] !== false);
    expect(returned).toEqual([
      expect.objectContaining({ Expression: 'IF((throttled + sent) > 0, 100 * throttled / (throttled + sent), 0)' }),
    ]);
    expect(metrics['throttled']?.['Expression']).toBe('FILL(throttledSender, 0) + FILL(throttledReclaimer, 0)');
    expect(metrics['sent']?.['Expression']).toBe('FILL(sentSender, 0) + FILL(sentReclaimer, 0)');
    expect(metrics['throttledSender']?.['MetricStat']).toEqual(statOf(METRIC.ProviderThrottled, 'sender'));
    expect(metrics['throttledReclaimer']?.['MetricStat']).toEqual(statOf(METRIC.ProviderThrottled, 'reclaimer'));
    expect(metrics['sentSender']?.['MetricStat']).toEqual(statOf(METRIC.Sent, 'sender'));
    expect(metrics['sentReclaimer']?.['MetricStat']).toEqual(statOf(METRIC.Sent, 'reclaimer'));
  });

  it('RateLimitedDeferralSustained fires when messages are deferred in every 5-minute period for an hour', () => {
    const props = alarmProps(ALARM.rateLimitedDeferralSustained);
    expect(props).toMatchObject({ ...wired, Threshold: 0, EvaluationPeriods: 12, DatapointsToAlarm: 12 });
    const metrics = metricsOf(props);
    expect(metrics['deferredSender']?.['MetricStat']).toEqual(statOf(METRIC.RateLimitedDeferral, 'sender'));
    expect(metrics['deferredReclaimer']?.['MetricStat']).toEqual(statOf(METRIC.RateLimitedDeferral, 'reclaimer'));
  });

  it('BacklogAgeNearLimit fires when the oldest message passes a quarter of the loss horizon for 3 periods', () => {
    // Default queue: the least time to the DLQ of a message deferred on every receive is 110,475 s (< 4 days' retention).
    const noSms = synth({ lanes: false, smsCountries: undefined, smsMonthlySpendLimitUsd: undefined });
    expect(alarmProps(ALARM.backlogAgeNearLimit, noSms.template, noSms.stack)).toMatchObject({
      ...wired,
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(noSms.stack.notifier.queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 27_618,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  it('BacklogAgeNearLimit follows the configured backoff and maxReceiveCount', () => {
    // 10 s doubling to 2 h over 39 deferrals: at least 109,515 s before the DLQ; a quarter is 27,378 s.
    const s = synth({ throttleBackoff: { cap: Duration.hours(2) }, maxReceiveCount: 40 });
    expect(alarmProps(ALARM.backlogAgeNearLimit, s.template, s.stack)).toMatchObject({ Threshold: 27_378 });
  });

  it('takes the throttle percentage, the rate-limiting span and the backlog age from props', () => {
    const s = synth({
      alarms: { providerThrottledRatePercent: 5, sustainedRateLimiting: Duration.minutes(30), backlogAge: Duration.hours(2) },
    });
    expect(alarmProps(ALARM.providerThrottledRate, s.template, s.stack)).toMatchObject({ Threshold: 5 });
    expect(alarmProps(ALARM.rateLimitedDeferralSustained, s.template, s.stack)).toMatchObject({
      EvaluationPeriods: 6,
      DatapointsToAlarm: 6,
    });
    expect(alarmProps(ALARM.backlogAgeNearLimit, s.template, s.stack)).toMatchObject({ Threshold: 7200 });
  });

  it('fails if the backlog age is not below the loss horizon', () => {
    expect(() => synth({ alarms: { backlogAge: Duration.hours(31) } })).toThrow(
      /alarms\.backlogAge \(111600s\) must be above 0 and below the backlog loss horizon \(110475s/,
    );
  });

  it('fails if the rate-limiting span is not a whole number of periods within a day', () => {
    expect(() => synth({ alarms: { sustainedRateLimiting: Duration.minutes(7) } })).toThrow(
      /alarms\.sustainedRateLimiting \(420s\) must be a whole number of alarm periods \(300s\)/,
    );
    expect(() => synth({ alarms: { sustainedRateLimiting: Duration.hours(25) } })).toThrow(/alarms\.sustainedRateLimiting \(90000s\)/);
  });

  it('fails if the throttle percentage is not below 100', () => {
    expect(() => synth({ alarms: { providerThrottledRatePercent: 100 } })).toThrow(
      /alarms\.providerThrottledRatePercent \(100\) must be a percentage from 0 to below 100/,
    );
  });
});

describe('Lambda alarms', () => {
  it.each([
    [ALARM.senderErrors, 'Errors', 'senderFunction'],
    [ALARM.senderThrottles, 'Throttles', 'senderFunction'],
    [ALARM.reclaimerErrors, 'Errors', 'reclaimerFunction'],
    [ALARM.reclaimerThrottles, 'Throttles', 'reclaimerFunction'],
    [ALARM.statusErrors, 'Errors', 'statusFunction'],
    [ALARM.statusThrottles, 'Throttles', 'statusFunction'],
  ] as const)('%s: AWS/Lambda %s > 0 of the %s', (alarm, metric, fn) => {
    expect(alarmProps(alarm, single.template, single.stack)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: metric,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(single.stack.notifier[fn]) } }],
      Statistic: 'Sum',
      Threshold: 0,
    });
  });

  it.each([
    [ALARM.senderErrors, 'Errors'],
    [ALARM.senderThrottles, 'Throttles'],
  ] as const)("with lanes, %s sums AWS/Lambda %s of both lanes' senders", (alarm, metric) => {
    const metrics = metricsOf(alarmProps(alarm));
    expect(Object.values(metrics).filter((m) => m['ReturnData'] !== false)).toEqual([
      expect.objectContaining({ Expression: 'FILL(urgent, 0) + FILL(bulk, 0)' }),
    ]);
    n.lanes.forEach((lane) => {
      expect(metrics[lane.name]?.['MetricStat']).toEqual({
        Metric: { Namespace: 'AWS/Lambda', MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(lane.senderFunction) } }] },
        Period: 300,
        Stat: 'Sum',
      });
    });
  });
});

describe('SMS spend alarm', () => {
  it('watches AWS/SNS SMSMonthToDateSpentUSD at 80% of the default US$1 limit', () => {
    expect(alarmProps(ALARM.smsMonthToDateSpend)).toMatchObject({
      Namespace: 'AWS/SNS',
      MetricName: 'SMSMonthToDateSpentUSD',
      Statistic: 'Maximum',
      Threshold: 0.8,
    });
  });

  it('follows the configured limit, or an explicit threshold', () => {
    const limited = synth({ smsMonthlySpendLimitUsd: 200 });
    expect(alarmProps(ALARM.smsMonthToDateSpend, limited.template, limited.stack)).toMatchObject({ Threshold: 160 });
    const explicit = synth({ smsMonthlySpendLimitUsd: 200, smsSpendAlarmThresholdUsd: 100 });
    expect(alarmProps(ALARM.smsMonthToDateSpend, explicit.template, explicit.stack)).toMatchObject({ Threshold: 100 });
  });
});

describe('alarm topic', () => {
  /** The alarm topic's policy statements (the SES events topic has its own policy). */
  const policyStatements = (t = template): Record<string, unknown>[] =>
    Object.values(resourcesOfType(t, 'AWS::SNS::TopicPolicy'))
      .filter((p) => JSON.stringify(p['Topics']) === JSON.stringify([topicRef]))
      .flatMap(
      (p) => (p['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement,
    );

  it('is created TLS-only, without subscriptions by default', () => {
    const bare = synth({ alarms: {}, lanes: false }).template;
    // The alarm topic and the SES events topic; the one subscription is the SES events queue's.
    bare.resourceCountIs('AWS::SNS::Topic', 2);
    expect(Object.values(resourcesOfType(bare, 'AWS::SNS::Subscription')).map((x) => x['Protocol'])).toEqual(['sqs']);
    expect(policyStatements()).toContainEqual({
      Effect: 'Deny',
      Action: 'sns:Publish',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Principal: '*',
      Resource: topicRef,
      Sid: 'AllowPublishThroughSSLOnly',
    });
  });

  it('grants cloudwatch.amazonaws.com sns:Publish on the topic, only for this account and these alarms', () => {
    const alarmArns = Object.values(n.alarms).map((a) => ({ 'Fn::GetAtt': [logicalId(a), 'Arn'] }));
    expect(policyStatements()).toContainEqual({
      Sid: 'AllowThisStacksAlarmsToPublish',
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Resource: topicRef,
      Condition: {
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnEquals: { 'aws:SourceArn': expect.arrayContaining(alarmArns) },
      },
    });
    const allowed = policyStatements().find((s) => s['Sid'] === 'AllowThisStacksAlarmsToPublish');
    const condition = allowed?.['Condition'] as { ArnEquals: { 'aws:SourceArn': unknown[] } };
    expect(condition.ArnEquals['aws:SourceArn']).toHaveLength(SNS_ALARMS.length);
  });

  it('allows no other principal to publish', () => {
    const allows = policyStatements().filter((s) => s['Effect'] === 'Allow');
    expect(allows.map((s) => s['Principal'])).toEqual([{ Service: 'cloudwatch.amazonaws.com' }]);
  });

  it('subscribes every alarm e-mail given', () => {
    const t = synth({ alarms: { emails: ['oncall@shop.acme.dev', 'team@shop.acme.dev'] }, lanes: false }).template;
    expect(Object.values(resourcesOfType(t, 'AWS::SNS::Subscription')).filter((x) => x['Protocol'] === 'email')).toHaveLength(2);
    for (const endpoint of ['oncall@shop.acme.dev', 'team@shop.acme.dev']) {
      t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: endpoint, TopicArn: Match.anyValue() });
    }
  });

  it('warns at synth when no alarm reaches anyone', () => {
    const bare = synth({ alarms: {} }).stack;
    const warnings = Annotations.fromStack(bare).findWarning('*', Match.stringLikeRegexp('No alarm subscriber'));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]?.entry.data)).toContain(NO_ALARM_SUBSCRIBER_WARNING);
  });

  it('does not warn when an e-mail is subscribed or an existing topic is used', () => {
    const withEmail = synth({ alarms: { emails: ['oncall@shop.acme.dev'] } }).stack;
    expect(Annotations.fromStack(withEmail).findWarning('*', Match.stringLikeRegexp('No alarm subscriber'))).toEqual([]);
    const withTopic = new Stack(newApp(), 'WithTopic');
    const existing = sns.Topic.fromTopicArn(withTopic, 'Oncall', 'arn:aws:sns:eu-west-1:111122223333:oncall');
    new IdempotentNotifier(withTopic, 'Notifier', { ...BASE_PROPS, alarms: { topic: existing }, lanes: false });
    expect(Annotations.fromStack(withTopic).findWarning('*', Match.stringLikeRegexp('No alarm subscriber'))).toEqual([]);
    // Only the SES events topic's own policy.
    Template.fromStack(withTopic).resourceCountIs('AWS::SNS::TopicPolicy', 1);
  });

  it("leaves a given topic's policy to its owner (a first statement would replace SNS's default policy)", () => {
    const s = new Stack(newApp(), 'OwnTopic');
    const own = new sns.Topic(s, 'Oncall');
    new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, alarms: { topic: own }, lanes: false });
    const t = Template.fromStack(s);
    expect(Object.values(resourcesOfType(t, 'AWS::SNS::TopicPolicy')).filter((p) => JSON.stringify(p['Topics']).includes(logicalId(own)))).toEqual([]);
    for (const alarm of Object.values(resourcesOfType(t, 'AWS::CloudWatch::Alarm'))) {
      expect(alarm['AlarmActions']).toEqual([{ Ref: logicalId(own) }]);
    }
  });
});
