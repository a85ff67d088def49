import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_MESSAGE_CLASSES } from '../../functions/core/policy/message-class';
import { laneClassMatcher, laneOfMessageClass, type LaneName } from '../../functions/core/policy/send-lanes';
import { IdempotentNotifier } from '../../lib/notifier';
import { resolveLanes } from '../../lib/notifier-lanes';
import { resolveSettings, settingsViolations } from '../../lib/notifier-settings';
import { BASE_PROPS, errorOf, logicalId, newApp, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
void stack;
const n = stack.notifier;
const [urgent, bulk] = n.lanes;

/** The body filter policy of the event topic's subscription that feeds `queue`. */
function filterPolicyOf(t: Template, queue: sqs.IQueue): unknown {
  const subscriptions = Object.values(resourcesOfType(t, 'AWS::SNS::Subscription')).filter(
    (sub) => JSON.stringify(sub['Endpoint']) === JSON.stringify({ 'Fn::GetAtt': [logicalId(queue), 'Arn'] }),
  );
  expect(subscriptions).toHaveLength(1);
  expect(subscriptions[0]).toMatchObject({ Protocol: 'sqs', RawMessageDelivery: true, FilterPolicyScope: 'MessageBody' });
  return subscriptions[0]?.['FilterPolicy'];
}

/**
 * What a filter policy value of the two operators the lanes use does with one `messageClass` (a value, or
 * absent): list membership, `anything-but` and `exists: false`. Hand-written: no maintained library
 * evaluates SNS body policies in Node, and the rule the lanes rest on is these three operators' meaning.
 */
function matches(conditions: readonly unknown[], value: string | undefined): boolean {
  return conditions.some((condition) => {
    if (typeof condition === 'string') return value === condition;
    const c = condition as { 'anything-but'?: string[]; exists?: boolean };
    if (c['anything-but']) return value !== undefined && !c['anything-but'].includes(value);
    if (c.exists === false) return value === undefined;
    throw new Error(`operator not modelled: ${JSON.stringify(condition)}`);
  });
}

describe('priority lanes (the default)', () => {
  it('gives each lane its own queue, dead-letter queue and sender', () => {
    expect(n.lanes.map((l) => l.name)).toEqual(['urgent', 'bulk']);
    expect(urgent?.queue).toBe(n.queue);
    expect(urgent?.senderFunction).toBe(n.senderFunction);
    const ids = n.lanes.flatMap((l) => [l.queue, l.deadLetterQueue, l.senderFunction].map(logicalId));
    expect(new Set(ids).size).toBe(6);
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: Match.absent(),
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(bulk!.deadLetterQueue), 'Arn'] }, maxReceiveCount: 100 },
    });
  });

  it('creates an event topic, TLS-only and encrypted, that feeds both lanes with raw delivery', () => {
    expect(n.eventTopic).toBeDefined();
    template.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'Notification events: routed into the lanes by messageClass',
      KmsMasterKeyId: Match.anyValue(),
    });
    expect(JSON.stringify(template.toJSON())).toContain(':alias/aws/sns');
    const policies = Object.values(resourcesOfType(template, 'AWS::SNS::TopicPolicy'));
    expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
    expect(filterPolicyOf(template, urgent!.queue)).toEqual({ messageClass: [{ 'anything-but': ['marketing'] }, { exists: false }] });
    expect(filterPolicyOf(template, bulk!.queue)).toEqual({ messageClass: ['marketing'] });
  });

  it('routes every class, an unknown one and a missing one to exactly one lane, as laneOfMessageClass does', () => {
    const bulkClasses = ['marketing', 'digest'];
    const names: (string | undefined)[] = [...BUILT_IN_MESSAGE_CLASSES.map((c) => c.name), 'digest', 'billing', 'Marketing', '', undefined];
    for (const name of names) {
      const lanes = (['urgent', 'bulk'] as LaneName[]).filter((lane) => matches(laneClassMatcher(lane, bulkClasses), name));
      expect(lanes, String(name)).toEqual([laneOfMessageClass(name, bulkClasses)]);
    }
    expect(laneOfMessageClass('otp', ['marketing'])).toBe('urgent');
    expect(laneOfMessageClass('marketing', ['marketing'])).toBe('bulk');
    expect(laneOfMessageClass(7, ['marketing'])).toBe('urgent');
  });

  it('routes the configured bulk classes', () => {
    const s = synth({
      messageClasses: [{ name: 'digest', onAmbiguous: 'give-up' }],
      lanes: { bulkClasses: ['marketing', 'digest'] },
    });
    const [u, b] = s.stack.notifier.lanes;
    expect(filterPolicyOf(s.template, b!.queue)).toEqual({ messageClass: ['marketing', 'digest'] });
    expect(filterPolicyOf(s.template, u!.queue)).toEqual({ messageClass: [{ 'anything-but': ['marketing', 'digest'] }, { exists: false }] });
  });

  it("grantSendEvents lets a producer publish to the event topic (with the topic key's use), and nothing else", () => {
    const s = new Stack(newApp(), 'Grant');
    const notifier = new IdempotentNotifier(s, 'Notifier', BASE_PROPS);
    const producer = new iam.Role(s, 'Producer', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    notifier.grantSendEvents(producer);
    const t = Template.fromStack(s);
    const policy = Object.values(resourcesOfType(t, 'AWS::IAM::Policy')).find((p) =>
      JSON.stringify(p['Roles']).includes(logicalId(producer)),
    );
    expect((policy?.['PolicyDocument'] as { Statement: unknown[] }).Statement).toEqual([
      { Action: 'sns:Publish', Effect: 'Allow', Resource: { Ref: logicalId(notifier.eventTopic!) } },
      expect.objectContaining({
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: { 'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/aws/sns' } },
      }),
    ]);
  });

  it("subscribeToTopic subscribes each lane's queue to a producer's topic with its filter", () => {
    const s = new Stack(newApp(), 'Producers');
    const notifier = new IdempotentNotifier(s, 'Notifier', BASE_PROPS);
    notifier.subscribeToTopic(new sns.Topic(s, 'Orders'));
    const t = Template.fromStack(s);
    const fromOrders = Object.values(resourcesOfType(t, 'AWS::SNS::Subscription')).filter(
      (sub) => JSON.stringify(sub['TopicArn']) === JSON.stringify({ Ref: logicalId(s.node.findChild('Orders')) }),
    );
    expect(fromOrders.map((sub) => sub['FilterPolicy'])).toEqual([
      { messageClass: [{ 'anything-but': ['marketing'] }, { exists: false }] },
      { messageClass: ['marketing'] },
    ]);
  });

  it('addEventRule makes one rule per lane, each also matching detail.messageClass', () => {
    const s = new Stack(newApp(), 'Rules');
    const notifier = new IdempotentNotifier(s, 'Notifier', BASE_PROPS);
    const rules = notifier.addEventRule('Orders', { eventPattern: { source: ['shop.orders'], detail: { kind: ['order'] } } });
    expect(rules).toHaveLength(2);
    const t = Template.fromStack(s);
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['shop.orders'], detail: { kind: ['order'], messageClass: [{ 'anything-but': ['marketing'] }, { exists: false }] } },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(notifier.lanes[0]!.queue), 'Arn'] } })],
    });
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['shop.orders'], detail: { kind: ['order'], messageClass: ['marketing'] } },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(notifier.lanes[1]!.queue), 'Arn'] } })],
    });
  });
});

describe('one queue (lanes: false, or an existing queue)', () => {
  it('has no event topic; grantSendEvents grants the queue', () => {
    const s = new Stack(newApp(), 'Single');
    const notifier = new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, lanes: false });
    expect(notifier.eventTopic).toBeUndefined();
    const role = new iam.Role(s, 'Producer', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    notifier.grantSendEvents(role);
    const t = Template.fromStack(s);
    // The lane's queue pair, the status function's failed-events queue, the SES events queue pair, outcome and fallback batches given up on.
    expect(Object.keys(resourcesOfType(t, 'AWS::SQS::Queue'))).toHaveLength(7);
    const policy = Object.values(resourcesOfType(t, 'AWS::IAM::Policy')).find((p) => JSON.stringify(p['Roles']).includes(logicalId(role)));
    expect(JSON.stringify(policy)).toContain('sqs:SendMessage');
    expect(JSON.stringify(policy)).toContain(logicalId(notifier.queue));
  });

  it('an existing queue means one lane unless lanes are asked for, and asking is refused', () => {
    const s = new Stack(newApp(), 'Existing');
    const dlq = new sqs.Queue(s, 'Dlq');
    const queue = new sqs.Queue(s, 'Q', { visibilityTimeout: Duration.seconds(180), deadLetterQueue: { queue: dlq, maxReceiveCount: 100 } });
    const existingQueue = {
      queue,
      deadLetterQueue: dlq,
      visibilityTimeout: Duration.seconds(180),
      retentionPeriod: Duration.days(4),
      deadLetterRetentionPeriod: Duration.days(14),
      maxReceiveCount: 100,
    };
    const notifier = new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, existingQueue });
    expect(notifier.lanes.map((l) => l.name)).toEqual(['single']);
    expect(errorOf({ existingQueue, lanes: {} })).toMatch(/lanes need queues of their own: with existingQueue \(one queue\), set lanes: false/);
  });
});

describe('lane options are checked at synth, each with the value given', () => {
  it.each([
    [{ bulkRateShare: 1 }, /lanes\.bulkRateShare \(1\) must be from 0\.05 to 0\.95/],
    [{ bulkRateShare: 0 }, /lanes\.bulkRateShare \(0\)/],
    [{ urgentMaxConcurrency: 1 }, /lanes\.urgentMaxConcurrency \(1\) must be a whole number from 2 to 1000/],
    [{ urgentMaxConcurrency: 2.5 }, /lanes\.urgentMaxConcurrency \(2\.5\)/],
    [{ urgentThrottleBackoffBase: Duration.millis(1500) }, /lanes\.urgentThrottleBackoffBase \(1\.5s\) must be whole seconds/],
    [{ urgentThrottleBackoffBase: Duration.hours(1) }, /lanes\.urgentThrottleBackoffBase \(3600s\).*at most throttleBackoff\.cap \(2400s\)/],
    [{ bulkClasses: [] }, /lanes\.bulkClasses \(\[\]\) must name at least one class/],
    [{ bulkClasses: ['newsletter'] }, /lanes\.bulkClasses names classes that do not exist \(newsletter\)/],
    [{ bulkClasses: ['marketing', 'marketing'] }, /names a class twice/],
    [{ bulkClasses: ['otp', 'transactional', 'marketing'] }, /leaves no class urgent/],
  ] as const)('refuses %o', (lanes, message) => {
    expect(errorOf({ lanes })).toMatch(message);
  });

  it('lists every bad lane option at once', () => {
    const message = errorOf({ lanes: { bulkRateShare: 2, urgentMaxConcurrency: 0 } });
    expect(message).toMatch(/bulkRateShare \(2\)/);
    expect(message).toMatch(/urgentMaxConcurrency \(0\)/);
  });

  it("refuses a lane whose longest backoff step the reclaimer (reading the urgent lane's variables) would not cover", () => {
    const settings = resolveSettings({ ...BASE_PROPS }, { defaultMetricsNamespace: 'IdempotentNotifier/Test' });
    const lanes = resolveLanes({
      lanes: {},
      existingQueue: false,
      maxConcurrency: 10,
      throttleBackoff: { baseSeconds: 10, capSeconds: 2400 },
    });
    const [u, b] = lanes.lanes;
    const widened = { ...lanes, lanes: [u!, { ...b!, throttleBackoff: { baseSeconds: 10, capSeconds: 3600 } }] };
    expect(settingsViolations({ ...settings, lanes: widened })).toContainEqual(
      expect.stringMatching(/the reclaimer does not cover the bulk lane: its longest backoff step \(3600s\) exceeds the urgent lane's \(2400s\)/),
    );
    expect(settingsViolations(settings).filter((v) => v.includes('reclaimer does not cover'))).toEqual([]);
  });
});
