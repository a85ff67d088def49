import { App, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OUTCOME_STREAM_FILTERS } from '../../lib/outcome-stream-filter';
import { OUTCOMES_ENV } from '../../functions/outcomes/outcomes-config';
import { NotifierStack } from '../../lib/notifier-stack';
import { OUTCOME_MAX_RECORD_AGE, OUTCOME_RETRY_ATTEMPTS } from '../../lib/notifier-outcomes';
import { BASE_PROPS, logicalId, newApp, synth } from './helpers';
import { DIMENSION, METRIC, SERVICE } from '../../functions/core/observability/metric-names';
import { STATUS_MEANINGS, statusOutcome } from '../../functions/core/provider/delivery-status-meaning';

const { stack, template } = synth();
const n = stack.notifier;

interface Statement {
  readonly Action: string | string[];
  readonly Resource?: unknown;
}
function publisherStatements(t: Template, policyOf: string): Statement[] {
  const policies = t.findResources('AWS::IAM::Policy');
  return Object.entries(policies)
    .filter(([id]) => id.startsWith(policyOf))
    .flatMap(([, p]) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
}

describe('the outcome feed', () => {
  it('creates a bus the stack owns and names it in the outputs', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    const outputs = template.findOutputs('OutcomeEventBusName');
    expect(outputs['OutcomeEventBusName']?.Value).toEqual({ Ref: logicalId(n.outcomeEventBus as events.EventBus) });
    template.hasOutput('OutcomeEventBusArn', {});
  });

  it('turns on the ledger table\'s stream with new and old images', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('maps the stream to the publisher with the outcome filters, partial batch responses, bisection and bounded retries', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(n.outcomeEvents.fn) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(n.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: OUTCOME_RETRY_ATTEMPTS,
      MaximumRecordAgeInSeconds: OUTCOME_MAX_RECORD_AGE.toSeconds(),
      FilterCriteria: { Filters: OUTCOME_STREAM_FILTERS.map((pattern) => ({ Pattern: JSON.stringify(pattern) })) },
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(n.outcomeEvents.failedBatchQueue), 'Arn'] } } },
    });
  });

  // Defect (2026-12-06): Reject, RenderingFailure, Subscription, TEXT_SUCCESSFUL and TEXT_UNKNOWN now make an event;
  // a deployed filter that did not name them would drop the write, and the producer would hear nothing.
  it('the deployed filter names every status that makes a producer-visible state, and each pattern fits Lambda\'s limit', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as { Properties: { FilterCriteria?: { Filters: { Pattern: string }[] } } }[];
    const patterns = mappings.flatMap((m) => m.Properties.FilterCriteria?.Filters ?? []).map((f) => f.Pattern);
    const named = new Set(
      patterns.flatMap((p) => (JSON.parse(p) as { dynamodb?: { NewImage?: { deliveryStatus?: { S?: string[] } } } }).dynamodb?.NewImage?.deliveryStatus?.S ?? []),
    );
    const heard = Object.keys(STATUS_MEANINGS).filter((status) => statusOutcome(status) !== 'nothing');
    expect(heard).toEqual(expect.arrayContaining(['Reject', 'RenderingFailure', 'Subscription', 'TEXT_SUCCESSFUL', 'TEXT_UNKNOWN']));
    expect(heard.filter((status) => !named.has(status))).toEqual([]);
    // Filter.Pattern: "Maximum length of 4096" (https://docs.aws.amazon.com/lambda/latest/api/API_Filter.html).
    for (const pattern of patterns) expect(pattern.length).toBeLessThanOrEqual(4096);
  });

  it('parks given-up batches in a retained, encrypted, TLS-only queue', () => {
    template.hasResource('AWS::SQS::Queue', {
      Properties: Match.objectLike({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 }),
      DeletionPolicy: 'Retain',
    });
    const id = logicalId(n.outcomeEvents.failedBatchQueue);
    expect(template.toJSON().Resources[id].DeletionPolicy).toBe('Retain');
  });

  it('grants the publisher PutEvents on its bus alone, and nothing on the table but its stream', () => {
    const statements = publisherStatements(template, 'NotifierOutcomeEventsPublisherRole');
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions).toContain('events:PutEvents');
    expect(actions.filter((a) => a.startsWith('dynamodb:')).sort()).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']);
    const put = statements.find((s) => s.Action === 'events:PutEvents');
    expect(put?.Resource).toEqual({ 'Fn::GetAtt': [logicalId(n.outcomeEventBus as events.EventBus), 'Arn'] });
  });

  it('tells the publisher its bus and, with lanes, the bulk classes', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [OUTCOMES_ENV.eventBusName]: { 'Fn::GetAtt': [logicalId(n.outcomeEventBus as events.EventBus), 'Arn'] },
          [OUTCOMES_ENV.bulkClasses]: 'marketing',
        }),
      },
    });
  });

  it('alarms on the iterator age, the publisher\'s errors, failed entries and the on-failure queue', () => {
    for (const name of ['OutcomeIteratorAge', 'OutcomePublisherErrors', 'OutcomeEntriesFailed', 'OutcomeFailedBatches'] as const) {
      expect(n.alarms[name], name).toBeDefined();
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Statistic: 'Maximum', Threshold: 600_000 });
  });

  it('each outcome alarm watches its own signal: the publisher\'s iterator age and errors, its failed entries, the on-failure queue', () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    const props = (name: 'OutcomeIteratorAge' | 'OutcomePublisherErrors' | 'OutcomeEntriesFailed' | 'OutcomeFailedBatches') =>
      (alarms[logicalId(n.alarms[name]!)] as { Properties: Record<string, unknown> }).Properties;
    const publisher = [{ Name: 'FunctionName', Value: { Ref: logicalId(n.outcomeEvents.fn) } }];
    expect(props('OutcomeIteratorAge')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'IteratorAge', Dimensions: publisher, Statistic: 'Maximum' });
    expect(props('OutcomePublisherErrors')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: publisher, Statistic: 'Sum' });
    expect(props('OutcomeEntriesFailed')).toMatchObject({
      MetricName: METRIC.OutcomeEntryFailed,
      Dimensions: [{ Name: DIMENSION.service, Value: SERVICE.outcomes }],
      Statistic: 'Sum',
    });
    expect(props('OutcomeFailedBatches')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(n.outcomeEvents.failedBatchQueue), 'QueueName'] } }],
    });
  });

  it('puts the events on an existing bus when one is given, and creates none', () => {
    const app = newApp();
    const arn = 'arn:aws:events:eu-west-1:111122223333:event-bus/shared';
    // Imported elsewhere (an app of its own, never synthesized): only its ARN reaches this stack.
    const bus = events.EventBus.fromEventBusArn(new Stack(new App(), 'Shared'), 'Bus', arn);
    const t = Template.fromStack(new NotifierStack(app, 'WithBus', { notifier: { ...BASE_PROPS, outcomeEventBus: bus } }));
    t.resourceCountIs('AWS::Events::EventBus', 0);
    const puts = publisherStatements(t, 'NotifierOutcomeEventsPublisherRole').filter((st) => st.Action === 'events:PutEvents');
    expect(puts.map((st) => st.Resource)).toEqual([arn]);
  });
});
