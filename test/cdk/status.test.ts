import { Match } from 'aws-cdk-lib/assertions';
import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { ENV } from '../../functions/core/sender-config';
import { statusFromSesEvent } from '../../functions/status/ses-event';
import { decodeStatusInput } from '../../functions/status/decode-status-input';
import { loadStatusConfig } from '../../functions/status/status-config';
import { SES_CONFIGURATION_SET_TAG, SES_STATUS_EVENTS } from '../../lib/notifier-status';
import type { NotifierStack } from '../../lib/notifier-stack';
import { ALARM } from '../../lib/notifier-alarms';
import { logicalId, propertiesOf, resolveDummy, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;
const fnArn = { 'Fn::GetAtt': [logicalId(n.statusFunction), 'Arn'] };
const tableArn = { 'Fn::GetAtt': [logicalId(n.table), 'Arn'] };
const defaultBusArn = {
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':events:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':event-bus/default'],
  ],
};

/** The `eventType` SES writes for each destination event type (SES event publishing record format). */
const SES_EVENT_TYPE: Readonly<Record<string, string>> = {
  send: 'Send',
  delivery: 'Delivery',
  bounce: 'Bounce',
  complaint: 'Complaint',
  reject: 'Reject',
  deliveryDelay: 'DeliveryDelay',
  renderingFailure: 'Rendering Failure',
  subscription: 'Subscription',
};

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource?: unknown;
}

/** Every statement of every IAM policy attached to the status function's role. */
function statusRoleStatements(s: NotifierStack = stack, t = template): Statement[] {
  const roleId = logicalId(s.notifier.statusFunction.role ?? fail('no role'));
  return Object.values(resourcesOfType(t, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p['Roles']).includes(`"${roleId}"`))
    .flatMap((p) => (p['PolicyDocument'] as { Statement: Statement[] }).Statement);
}

function fail(message: string): never {
  throw new Error(message);
}

/** An SES `Delivery` event as EventBridge delivers it from a configuration set with an EventBridge destination. */
function sesEventBridgeEvent(configurationSet: string): Record<string, unknown> {
  return {
    version: '0',
    id: 'c2a9e2e6-1111-2222-3333-444455556666',
    'detail-type': 'Email Delivered',
    source: 'aws.ses',
    account: '111122223333',
    time: '2026-01-01T00:00:02Z',
    region: 'eu-west-1',
    resources: [],
    detail: {
      eventType: 'Delivery',
      mail: {
        timestamp: '2026-01-01T00:00:00.000Z',
        messageId: '0102018c-ses-message-id',
        tags: { [SES_CONFIGURATION_SET_TAG]: [configurationSet], 'idempotency-key': ['a'.repeat(64)] },
      },
      delivery: { timestamp: '2026-01-01T00:00:01.000Z' },
    },
  };
}

describe('status function', () => {
  it('runs on Node.js 24 arm64 with the function timeout and memory, logging JSON to its own log group', () => {
    expect(propertiesOf(template, n.statusFunction)).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 30,
      MemorySize: 512,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logicalId(n.statusLogGroup) } },
      Role: { 'Fn::GetAtt': [logicalId(n.statusFunction.role ?? fail('no role')), 'Arn'] },
    });
  });

  it("receives only the ledger table name and its notifier's metrics namespace, which its config loader accepts", () => {
    const env = propertiesOf(template, n.statusFunction)['Environment'] as { Variables: Record<string, unknown> };
    expect(env.Variables).toEqual({ [ENV.tableName]: { Ref: logicalId(n.table) }, [ENV.metricsNamespace]: n.metricsNamespace });
    const resolved = Object.fromEntries(Object.entries(env.Variables).map(([k, v]) => [k, resolveDummy(v)]));
    expect(loadStatusConfig(resolved).tableName).toBe(`dummy-${logicalId(n.table)}`);
  });

  it('follows functionTimeout and memorySize', () => {
    const { stack: s, template: t } = synth({ functionTimeout: Duration.seconds(60), memorySize: 1024 });
    expect(propertiesOf(t, s.notifier.statusFunction)).toMatchObject({ Timeout: 60, MemorySize: 1024 });
  });
});

describe('status role (least privilege)', () => {
  const statements = statusRoleStatements();

  it('allows exactly: its own logs, GetItem/UpdateItem on the table, Query on the SMS message id index', () => {
    expect(statements.filter((x) => !JSON.stringify(x.Action).includes('sqs:'))).toEqual([
      {
        Sid: 'WriteOwnLogs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logicalId(n.statusLogGroup), 'Arn'] },
      },
      {
        Sid: 'RecordDeliveryStatus',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: tableArn,
      },
      {
        Sid: 'QuerySmsMessageIndex',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [tableArn, `/index/${LEDGER_TABLE.smsMessageIndex.name}`]] },
      },
    ]);
  });

  it('may send only to its failed-events queue and consume only the SES events queue, nothing else in SQS', () => {
    const sqsStatements = statements.filter((x) => JSON.stringify(x.Action).includes('sqs:'));
    expect(sqsStatements.map((x) => x.Resource)).toEqual(
      expect.arrayContaining([
        { 'Fn::GetAtt': [logicalId(n.deliveryStatus.failedEventQueue), 'Arn'] },
        { 'Fn::GetAtt': [logicalId(n.deliveryStatus.sesEvents.queue), 'Arn'] },
      ]),
    );
    expect(sqsStatements).toHaveLength(2);
    const send = sqsStatements.find((x) => JSON.stringify(x.Resource).includes(logicalId(n.deliveryStatus.failedEventQueue)));
    expect([...(send?.Action ?? [])].sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
  });

  it('has no managed or inline policies on the role itself', () => {
    const role = propertiesOf(template, n.statusFunction.role ?? fail('no role'));
    expect(role['ManagedPolicyArns']).toBeUndefined();
    expect(role['Policies']).toBeUndefined();
    expect(role['AssumeRolePolicyDocument']).toMatchObject({
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'lambda.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ],
    });
  });

  it('gains nothing when SMS delivery-status logs are consumed (invocations are resource-policy grants)', () => {
    const { stack: s, template: t } = synth({ smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: 100 });
    expect(statusRoleStatements(s, t).map((x) => x.Sid ?? 'SQS grant (failed-events queue, SES events queue)').sort()).toEqual(
      ['WriteOwnLogs', 'RecordDeliveryStatus', 'QuerySmsMessageIndex', 'SQS grant (failed-events queue, SES events queue)', 'SQS grant (failed-events queue, SES events queue)'].sort(),
    );
  });
});

describe('status safety net (asynchronous on-failure destination)', () => {
  const queue = n.deliveryStatus.failedEventQueue;

  it('sends events that still fail after Lambda\'s retries to the failed-events queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(n.statusFunction) },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(queue), 'Arn'] } } },
    });
  });

  it('keeps failed events 14 days, encrypted, TLS-only', () => {
    expect(propertiesOf(template, queue)).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: logicalId(queue) }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('alarms when the failed-events queue holds a message', () => {
    expect(propertiesOf(template, n.alarms.StatusFailedEvents ?? fail("no StatusFailedEvents alarm"))).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 0,
    });
  });

  it('outputs the queue URL', () => {
    expect(Object.keys(template.findOutputs('StatusFailedEventQueueUrl'))).toEqual(['StatusFailedEventQueueUrl']);
  });
});

describe('SES configuration-set events (SES -> SNS -> SQS -> status, in batches)', () => {
  const sesEvents = n.deliveryStatus.sesEvents;

  it('publishes send, delivery, bounce, complaint, reject, deliveryDelay, renderingFailure and subscription of each lane set to the SES events topic', () => {
    const destinations = Object.values(resourcesOfType(template, 'AWS::SES::ConfigurationSetEventDestination'));
    const sets = [n.configurationSet, n.bulkConfigurationSet ?? fail('no bulk set')];
    expect(destinations).toEqual(
      sets.map((set) => ({
        ConfigurationSetName: { Ref: logicalId(set) },
        EventDestination: {
          Enabled: true,
          SnsDestination: { TopicARN: { Ref: logicalId(sesEvents.topic) } },
          MatchingEventTypes: ['send', 'delivery', 'bounce', 'complaint', 'reject', 'deliveryDelay', 'renderingFailure', 'subscription'],
        },
      })),
    );
  });

  it('publishes only event types the status handler records', () => {
    for (const type of SES_STATUS_EVENTS) {
      const eventType = SES_EVENT_TYPE[type] ?? fail(`no SES eventType for ${type}`);
      const decoded = statusFromSesEvent({ eventType, mail: { timestamp: '2026-11-29T12:00:00.000Z', messageId: 'm-1', tags: {} } });
      expect('invalid' in decoded ? decoded.invalid : 'recorded', type).toBe('recorded');
    }
  });

  it('records SES "Rendering Failure" events (SES spells that eventType with a space)', () => {
    const event = statusFromSesEvent({
      eventType: SES_EVENT_TYPE['renderingFailure'],
      mail: { timestamp: '2026-11-29T12:00:00.000Z', messageId: 'm-1', tags: {} },
    });
    expect(event).toMatchObject({ update: { status: 'RenderingFailure' } });
  });

  it('lets SES publish to the topic for these configuration sets only', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sns:Publish',
            Principal: { Service: 'ses.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      }),
    });
  });

  it('delivers the topic to the status queue raw, the queue with a dead-letter queue after 10 receives', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      TopicArn: { Ref: logicalId(sesEvents.topic) },
      Endpoint: { 'Fn::GetAtt': [logicalId(sesEvents.queue), 'Arn'] },
    });
    expect(propertiesOf(template, sesEvents.queue)).toMatchObject({
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(sesEvents.deadLetterQueue), 'Arn'] }, maxReceiveCount: 10 },
      VisibilityTimeout: 180,
    });
  });

  it('feeds the status function in batches of 10 with partial batch responses, at most statusMaxConcurrency at once (none reserved by default)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(sesEvents.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(n.statusFunction) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('has no SES rule on the default bus by default', () => {
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter((r) => JSON.stringify(r['EventPattern'] ?? {}).includes('aws.ses'));
    expect(rules).toEqual([]);
    expect(n.deliveryStatus.sesEventRule).toBeUndefined();
  });

  it('alarms when the dead-letter queue holds a message', () => {
    expect(propertiesOf(template, n.alarms[ALARM.sesEventDeadLetters] ?? fail('no alarm'))).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(sesEvents.deadLetterQueue), 'QueueName'] } }],
      Threshold: 0,
    });
  });

  it('adds the destination to an existing configuration set by name', () => {
    const { template: t } = synth({ sesConfigurationSetName: 'prod-set' });
    t.resourceCountIs('AWS::SES::ConfigurationSet', 0);
    t.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', { ConfigurationSetName: 'prod-set', EventDestination: Match.objectLike({ SnsDestination: Match.anyValue() }) });
  });

  it('leaves the destinations to the owner when sesEventDestination is false, keeping the topic and queue', () => {
    const { stack: s, template: t } = synth({ sesConfigurationSetName: 'prod-set', sesEventDestination: false });
    t.resourceCountIs('AWS::SES::ConfigurationSetEventDestination', 0);
    expect(s.notifier.deliveryStatus.sesEvents.eventDestinations).toEqual([]);
    // Each lane's sender, the status function on the SES events queue, the outcome publisher and the fallback
    // trigger on the ledger's stream.
    t.resourceCountIs('AWS::Lambda::EventSourceMapping', 5);
  });
});

describe('the opt-in EventBridge route (sesEventBridgeRule)', () => {
  const { stack: s, template: t } = synth({ sesEventBridgeRule: true });
  const bridged = s.notifier;

  it("routes both lane sets' SES events from the default bus to the status function, besides the queue", () => {
    const rules = Object.values(resourcesOfType(t, 'AWS::Events::Rule')).filter((r) => JSON.stringify(r['EventPattern'] ?? {}).includes('aws.ses'));
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      EventBusName: 'default',
      EventPattern: {
        source: ['aws.ses'],
        detail: { mail: { tags: { [SES_CONFIGURATION_SET_TAG]: [{ Ref: logicalId(bridged.configurationSet) }, { Ref: logicalId(bridged.bulkConfigurationSet ?? fail('no bulk set')) }] } } },
      },
    });
    t.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [logicalId(bridged.deliveryStatus.sesEventRule ?? fail('no rule')), 'Arn'] },
    });
    t.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', { EventDestination: Match.objectLike({ EventBridgeDestination: { EventBusArn: defaultBusArn } }) });
  });

  it('delivers events the status handler decodes (EventBridge envelope, source aws.ses)', () => {
    const decoded = decodeStatusInput(sesEventBridgeEvent('notifier-set'));
    expect(decoded.kind).toBe('eventbridge');
    expect(decoded.invalid).toEqual([]);
    expect(decoded.events).toEqual([expect.objectContaining({ channel: 'email', ref: { kind: 'key', key: 'a'.repeat(64) } })]);
  });
});
