import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../functions/core/idempotency-key';
import { METRIC, METRICS_NAMESPACE } from '../../functions/core/metric-names';
import { ALARM, type AlarmName, NO_ALARM_SUBSCRIBER_WARNING } from '../../lib/notifier-alarms';
import { IdempotentNotifier } from '../../lib/notifier';
import { BASE_PROPS, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;
const alarmProps = (name: AlarmName, t = template, s = stack): Record<string, unknown> =>
  propertiesOf(t, s.notifier.alarms[name] ?? fail(name));
function fail(name: string): never {
  throw new Error(`no alarm ${name}`);
}

const topicRef = { Ref: logicalId(n.alarmTopic) };

/** A metric alarm on one of the notifier's own metrics (shared namespace and names), dimension service only. */
const custom = (metricName: string, service: 'sender' | 'reclaimer' | 'status') => ({
  Namespace: METRICS_NAMESPACE,
  MetricName: metricName,
  Dimensions: [{ Name: 'service', Value: service }],
  Statistic: 'Sum',
  Period: 300,
});

describe('every alarm', () => {
  it('exists once per name, notifies the topic on ALARM and OK, and treats missing data as not breaching', () => {
    const all = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
    expect(Object.keys(all)).toHaveLength(Object.keys(ALARM).length);
    expect(Object.keys(n.alarms).sort()).toEqual(Object.values(ALARM).sort());
    for (const alarm of Object.values(all)) {
      expect(alarm).toMatchObject({
        AlarmActions: [topicRef],
        OKActions: [topicRef],
        TreatMissingData: 'notBreaching',
        ComparisonOperator: 'GreaterThanThreshold',
      });
      expect(alarm['AlarmDescription']).toMatch(/Runbook: README\.md, section "Alarm runbook"/);
    }
  });

  it('every alarm has its own entry in the README runbook', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const runbook = readme.slice(readme.indexOf('### Alarm runbook'));
    for (const name of Object.values(ALARM)) expect(runbook, name).toContain(`**${name}**`);
  });
});

describe('count alarms (> 0 in one 5-minute period)', () => {
  it.each([
    [ALARM.resentAfterAmbiguity, METRIC.ResentAfterAmbiguity, 'sender'],
    [ALARM.gaveUpAfterAmbiguity, METRIC.GaveUpAfterAmbiguity, 'sender'],
    [ALARM.invalidEvent, METRIC.InvalidEvent, 'sender'],
    [ALARM.stalePendingFound, METRIC.StalePendingFound, 'reclaimer'],
    [ALARM.deliveryStatusInvalid, METRIC.DeliveryStatusInvalid, 'status'],
  ] as const)('%s watches %s of the %s', (alarm, metric, service) => {
    expect(alarmProps(alarm)).toMatchObject({
      ...custom(metric, service),
      Threshold: 0,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
    });
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
      Metric: { Namespace: METRICS_NAMESPACE, MetricName: name, Dimensions: [{ Name: 'service', Value: 'sender' }] },
      Period: 300,
      Stat: 'Sum',
    });
    expect(stat('part')).toEqual(metricStat(metric));
    expect(stat('sent')).toEqual(metricStat(METRIC.Sent));
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

describe('queue alarms', () => {
  it('fires when the dead-letter queue has visible messages', () => {
    expect(alarmProps(ALARM.deadLetterQueueNotEmpty)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(n.deadLetterQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 0,
    });
  });

  it('fires when the oldest message in the main queue is older than 15 minutes (configurable)', () => {
    expect(alarmProps(ALARM.oldestMessageAge)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(n.queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 900,
    });
    const s = synth({ alarms: { oldestMessageAge: Duration.minutes(5) } });
    expect(alarmProps(ALARM.oldestMessageAge, s.template, s.stack)).toMatchObject({ Threshold: 300 });
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
    expect(alarmProps(alarm)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: metric,
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(n[fn]) } }],
      Statistic: 'Sum',
      Threshold: 0,
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
  const policyStatements = (t = template): Record<string, unknown>[] =>
    Object.values(resourcesOfType(t, 'AWS::SNS::TopicPolicy')).flatMap(
      (p) => (p['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement,
    );

  it('is created TLS-only, without subscriptions by default', () => {
    const bare = synth({ alarms: {} }).template;
    bare.resourceCountIs('AWS::SNS::Topic', 1);
    bare.resourceCountIs('AWS::SNS::Subscription', 0);
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
    expect(condition.ArnEquals['aws:SourceArn']).toHaveLength(Object.keys(ALARM).length);
  });

  it('allows no other principal to publish', () => {
    const allows = policyStatements().filter((s) => s['Effect'] === 'Allow');
    expect(allows.map((s) => s['Principal'])).toEqual([{ Service: 'cloudwatch.amazonaws.com' }]);
  });

  it('subscribes every alarm e-mail given', () => {
    const t = synth({ alarms: { emails: ['oncall@shop.acme.dev', 'team@shop.acme.dev'] } }).template;
    t.resourceCountIs('AWS::SNS::Subscription', 2);
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
    new IdempotentNotifier(withTopic, 'Notifier', { ...BASE_PROPS, alarms: { topic: existing } });
    expect(Annotations.fromStack(withTopic).findWarning('*', Match.stringLikeRegexp('No alarm subscriber'))).toEqual([]);
    Template.fromStack(withTopic).resourceCountIs('AWS::SNS::TopicPolicy', 0);
  });

  it("leaves a given topic's policy to its owner (a first statement would replace SNS's default policy)", () => {
    const s = new Stack(newApp(), 'OwnTopic');
    const own = new sns.Topic(s, 'Oncall');
    new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, alarms: { topic: own } });
    const t = Template.fromStack(s);
    t.resourceCountIs('AWS::SNS::TopicPolicy', 0);
    for (const alarm of Object.values(resourcesOfType(t, 'AWS::CloudWatch::Alarm'))) {
      expect(alarm['AlarmActions']).toEqual([{ Ref: logicalId(own) }]);
    }
  });
});

describe('dashboard', () => {
  const body = JSON.stringify(propertiesOf(template, n.dashboard)['DashboardBody']);

  it.each([
    METRIC.Sent,
    METRIC.DuplicateSuppressed,
    METRIC.AmbiguousOutcome,
    METRIC.ResentAfterAmbiguity,
    METRIC.GaveUpAfterAmbiguity,
    METRIC.SentByEvidence,
    METRIC.StalePendingFound,
    METRIC.DeliveryStatusRecorded,
    METRIC.DeliveryStatusSuperseded,
    METRIC.DeliveryStatusUnmatched,
    METRIC.DeliveryStatusInvalid,
  ])('graphs %s', (metric) => {
    expect(body).toContain(`\\"${METRICS_NAMESPACE}\\",\\"${metric}\\"`);
  });

  it('graphs failures by channel with a SEARCH over the channel dimension', () => {
    for (const channel of CHANNELS) {
      expect(body).toContain(
        `SUM(SEARCH('{${METRICS_NAMESPACE},channel,messageClass,service} MetricName=\\\\\\"${METRIC.PermanentFailure}\\\\\\" channel=\\\\\\"${channel}\\\\\\"', 'Sum', 300))`,
      );
    }
  });

  it('graphs recorded and unmatched delivery status per channel with a SEARCH over the status service', () => {
    for (const metric of [METRIC.DeliveryStatusRecorded, METRIC.DeliveryStatusUnmatched]) {
      for (const channel of ['email', 'sms']) {
        expect(body).toContain(
          `SUM(SEARCH('{${METRICS_NAMESPACE},channel,service} MetricName=\\\\\\"${metric}\\\\\\" service=\\\\\\"status\\\\\\" channel=\\\\\\"${channel}\\\\\\"', 'Sum', 300))`,
        );
      }
    }
  });

  it('graphs errors, throttles and duration of all three functions', () => {
    for (const fn of [n.senderFunction, n.reclaimerFunction, n.statusFunction]) {
      expect(body).toContain(`{\"Ref\":\"${logicalId(fn)}\"}`);
    }
    for (const label of ['status errors', 'status throttles', 'status p99']) expect(body).toContain(label);
  });

  it('graphs queue depth and age, Lambda duration and concurrency', () => {
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateAgeOfOldestMessage',
      'Duration',
      'ConcurrentExecutions',
    ]) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
    expect(body).toContain('\\"stat\\":\\"p99\\"');
  });

  it('shows the status of every alarm', () => {
    expect(body).toContain('\\"type\\":\\"alarm\\"');
    for (const alarm of Object.values(n.alarms)) {
      expect(body).toContain(`"${logicalId(alarm)}","Arn"`);
    }
  });
});
