import { Duration, Stack } from 'aws-cdk-lib';
import type { ChannelFallback } from '../../lib/notifier-fallback';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { ledgerCreateTableInput } from '../../functions/adapters/ledger-table-setup';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { IdempotentNotifier } from '../../lib/notifier';
import { NotifierStack } from '../../lib/notifier-stack';
import { BASE_PROPS, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

describe('queue and dead-letter queue', () => {
  it('creates the main queue with SSE, retention, visibility 6 x function timeout and a redrive policy', () => {
    expect(propertiesOf(template, n.queue)).toEqual({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: Duration.days(4).toSeconds(),
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(n.deadLetterQueue), 'Arn'] }, maxReceiveCount: 100 },
    });
  });

  it('creates the DLQ with SSE and 14 days retention', () => {
    expect(propertiesOf(template, n.deadLetterQueue)).toEqual({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: Duration.days(14).toSeconds(),
    });
  });

  it('denies non-TLS access on both queues', () => {
    for (const queue of [n.queue, n.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('takes retention, receive count and visibility from props', () => {
    const t = synth({
      queueRetention: Duration.days(4),
      deadLetterQueueRetention: Duration.days(7),
      maxReceiveCount: 90,
      visibilityTimeout: Duration.minutes(5),
    });
    t.template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: Duration.days(4).toSeconds(),
      VisibilityTimeout: 300,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 90 }),
    });
    t.template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: Duration.days(7).toSeconds() });
  });

  it('uses a KMS key for both queues when one is given', () => {
    const s = new Stack(newApp(), 'Kms');
    const key = new kms.Key(s, 'QueueKey', { enableKeyRotation: true });
    const notifier = new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, queueEncryptionKey: key });
    const t = Template.fromStack(s);
    for (const queue of [notifier.queue, notifier.deadLetterQueue]) {
      expect(propertiesOf(t, queue)['KmsMasterKeyId']).toEqual({ 'Fn::GetAtt': [logicalId(key), 'Arn'] });
    }
  });

  it('consumes an existing queue and exposes it, creating no queue of its own', () => {
    const s = new Stack(newApp(), 'Existing');
    const queue = sqs.Queue.fromQueueArn(s, 'Shared', 'arn:aws:sqs:eu-west-1:111122223333:shared');
    const dlq = sqs.Queue.fromQueueArn(s, 'SharedDlq', 'arn:aws:sqs:eu-west-1:111122223333:shared-dlq');
    const notifier = new IdempotentNotifier(s, 'Notifier', {
      ...BASE_PROPS,
      existingQueue: {
        queue,
        deadLetterQueue: dlq,
        visibilityTimeout: Duration.minutes(3),
        retentionPeriod: Duration.days(4),
        deadLetterRetentionPeriod: Duration.days(14),
        maxReceiveCount: 100,
      },
    });
    expect(notifier.queue).toBe(queue);
    expect(notifier.deadLetterQueue).toBe(dlq);
    const t = Template.fromStack(s);
    // Only the delivery-status path's own (the function's failed-events queue and the SES events queue pair) and the
    // outcome feed's and the fallback trigger's on-failure queues.
    const fallback = notifier.node.findChild('ChannelFallback') as ChannelFallback;
    expect(Object.keys(resourcesOfType(t, 'AWS::SQS::Queue')).sort()).toEqual(
      [notifier.deliveryStatus.failedEventQueue, notifier.deliveryStatus.sesEvents.queue, notifier.deliveryStatus.sesEvents.deadLetterQueue, notifier.outcomeEvents.failedBatchQueue, fallback.failedBatchQueue].map(logicalId).sort(),
    );
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: 'arn:aws:sqs:eu-west-1:111122223333:shared',
      FunctionName: { Ref: logicalId(notifier.senderFunction) },
    });
    const variables = (propertiesOf(t, notifier.senderFunction)['Environment'] as { Variables: Record<string, unknown> })
      .Variables;
    expect(JSON.stringify(variables['DEAD_LETTER_QUEUE_URL'])).toContain('/111122223333/shared-dlq');
  });

  it('subscribes the queue to a producer topic with raw message delivery', () => {
    const s = new NotifierStack(newApp(), 'Sub', { notifier: BASE_PROPS });
    const topic = new sns.Topic(s, 'Orders', { enforceSSL: true });
    s.notifier.subscribeToTopic(topic);
    Template.fromStack(s).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      TopicArn: { Ref: logicalId(topic) },
      Endpoint: { 'Fn::GetAtt': [logicalId(s.notifier.queue), 'Arn'] },
    });
  });
});

describe('producer wiring', () => {
  const wired = synth({
    producerTopicArns: ['arn:aws:sns:eu-west-1:111122223333:orders'],
    producerEventRules: [{ eventBusName: 'shop', eventPattern: { source: ['shop.orders'], detailType: ['NotificationRequested'] } }],
  });
  const queueArn = { 'Fn::GetAtt': [logicalId(wired.stack.notifier.queue), 'Arn'] };

  it('subscribes the queue to each producer topic with raw message delivery and lets the topic send', () => {
    wired.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      TopicArn: 'arn:aws:sns:eu-west-1:111122223333:orders',
      Endpoint: queueArn,
    });
    wired.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sqs:SendMessage',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': 'arn:aws:sns:eu-west-1:111122223333:orders' } },
          }),
        ]),
      },
    });
  });

  it('forwards matching EventBridge events to the queue', () => {
    wired.template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'shop',
      EventPattern: { source: ['shop.orders'], 'detail-type': ['NotificationRequested'] },
      Targets: [Match.objectLike({ Arn: queueArn })],
    });
    wired.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: Match.arrayWith(['sqs:SendMessage']), Principal: { Service: 'events.amazonaws.com' } }),
        ]),
      },
    });
  });
});

describe('ledger table', () => {
  const table = propertiesOf(template, n.table);

  it('is on-demand, keyed by the idempotency key (its event part, then the whole key), with TTL, PITR, deletion protection and encryption', () => {
    expect(table).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: LEDGER_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: LEDGER_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: LEDGER_TABLE.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is retained when the stack is deleted or the resource replaced', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('keys rows by event part and key, with the indexes of LEDGER_TABLE and the key types the handler writes', () => {
    const { pendingIndex, smsMessageIndex } = LEDGER_TABLE;
    expect(table['KeySchema']).toEqual([
      { AttributeName: LEDGER_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: LEDGER_TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect((table['GlobalSecondaryIndexes'] as { IndexName: string }[]).map((i) => i.IndexName).sort()).toEqual(
      [pendingIndex.name, smsMessageIndex.name].sort(),
    );
    expect(table['AttributeDefinitions']).toEqual(
      expect.arrayContaining([
        { AttributeName: LEDGER_TABLE.partitionKey, AttributeType: 'S' },
        { AttributeName: LEDGER_TABLE.sortKey, AttributeType: 'S' },
        { AttributeName: pendingIndex.partitionKey, AttributeType: 'S' },
        { AttributeName: pendingIndex.sortKey, AttributeType: 'N' },
        { AttributeName: smsMessageIndex.partitionKey, AttributeType: 'S' },
      ]),
    );
  });

  it('matches the table the local runner creates from the same definition', () => {
    const local = ledgerCreateTableInput('ledger');
    const sortByName = <T extends { AttributeName?: string; IndexName?: string }>(xs: readonly T[] = []): T[] =>
      [...xs].sort((a, b) => String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)));
    expect(sortByName(table['AttributeDefinitions'] as { AttributeName: string }[])).toEqual(
      sortByName(local.AttributeDefinitions),
    );
    expect(table['KeySchema']).toEqual(local.KeySchema);
    expect(sortByName(table['GlobalSecondaryIndexes'] as { IndexName: string }[])).toEqual(
      sortByName(local.GlobalSecondaryIndexes),
    );
  });

  it('can turn deletion protection off (table still retained)', () => {
    const t = synth({ tableDeletionProtection: false }).template;
    t.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    t.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
  });
});

describe('SES configuration set', () => {
  it('is created per lane when no name is given and passed to the functions (the urgent one as SES_CONFIGURATION_SET)', () => {
    template.resourceCountIs('AWS::SES::ConfigurationSet', 2);
    expect(n.bulkConfigurationSet).toBeDefined();
    expect(propertiesOf(template, n.senderFunction)['Environment']).toMatchObject({
      Variables: { SES_CONFIGURATION_SET: { Ref: logicalId(n.configurationSet) } },
    });
  });

  it('is not created when an existing one is named', () => {
    const t = synth({ sesConfigurationSetName: 'existing-set' });
    t.template.resourceCountIs('AWS::SES::ConfigurationSet', 0);
    expect(t.stack.notifier.configurationSetName).toBe('existing-set');
    t.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SES_CONFIGURATION_SET: 'existing-set' }) },
    });
  });
});

describe('SMS monthly spend limit', () => {
  it('is managed whenever SMS is enabled (the default), with the limit given', () => {
    const [resource, ...others] = Object.values(resourcesOfType(template, 'Custom::AWS'));
    expect(others).toEqual([]);
    expect(JSON.stringify(resource)).toContain('\\"MonthlySpendLimit\\":\\"1\\"');
  });

  it('is not managed with SMS disabled', () => {
    synth({ smsEnabled: false, smsMonthlySpendLimitUsd: undefined }).template.resourceCountIs('Custom::AWS', 0);
  });

  it('fails if SMS is enabled without a spend limit, saying how to set one', () => {
    expect(() => synth({ smsMonthlySpendLimitUsd: undefined })).toThrow(
      /smsMonthlySpendLimitUsd is required with smsEnabled \(true\).*notifier:smsMonthlySpendLimitUsd.*or smsEnabled: false/,
    );
  });

  it('fails if the spend alarm threshold is above the limit', () => {
    expect(() => synth({ smsMonthlySpendLimitUsd: 20, smsSpendAlarmThresholdUsd: 25 })).toThrow(
      /smsSpendAlarmThresholdUsd \(25\) must be above 0 and at most smsMonthlySpendLimitUsd \(20\)/,
    );
  });

  it('sets MonthlySpendLimit through SNS SetSMSAttributes when given', () => {
    const t = synth({ smsMonthlySpendLimitUsd: 50 }).template;
    const [resource] = Object.values(resourcesOfType(t, 'Custom::AWS'));
    expect(JSON.stringify(resource)).toContain('setSMSAttributes');
    expect(JSON.stringify(resource)).toContain('\\"MonthlySpendLimit\\":\\"50\\"');
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Sid: 'WriteOwnLogs', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'] }),
          { Action: 'sns:SetSMSAttributes', Effect: 'Allow', Resource: '*' },
        ],
      },
    });
  });
});

describe('stack outputs', () => {
  it('exports what an operator needs after deploy', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'QueueUrl',
        'QueueArn',
        'DeadLetterQueueUrl',
        'LedgerTableName',
        'SenderFunctionName',
        'ReclaimerFunctionName',
        'SenderLogGroupName',
        'ReclaimerLogGroupName',
        'StatusFunctionName',
        'StatusLogGroupName',
        'SesConfigurationSetName',
        'AlarmTopicArn',
        'DashboardName',
      ]),
    );
  });
});
