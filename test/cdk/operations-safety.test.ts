import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ALARM } from '../../lib/notifier-alarms';
import { errorOf, logicalId, propertiesOf, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

describe('SES configuration set', () => {
  it('requires TLS to the receiving mail server by default', () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSet', Match.objectLike({ DeliveryOptions: { TlsPolicy: 'REQUIRE' } }));
  });

  it('lets SES fall back to an unencrypted connection with sesRequireTls: false', () => {
    synth({ sesRequireTls: false }).template.hasResourceProperties(
      'AWS::SES::ConfigurationSet',
      Match.objectLike({ DeliveryOptions: { TlsPolicy: 'OPTIONAL' } }),
    );
  });
});

describe('queues that hold undelivered work outlive cdk destroy', () => {
  it.each([
    ['the dead-letter queue', () => n.deadLetterQueue],
    ["the status function's failed-events queue", () => n.deliveryStatus.failedEventQueue],
    ['the SES events queue', () => n.deliveryStatus.sesEvents.queue],
    ["the SES events queue's dead-letter queue", () => n.deliveryStatus.sesEvents.deadLetterQueue],
  ])('retains %s', (_name, queue) => {
    const resource = template.toJSON()['Resources'][logicalId(queue())] as { DeletionPolicy: string; UpdateReplacePolicy: string };
    expect(resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('deletes the main queue with the stack (its messages were never accepted for delivery)', () => {
    const resource = template.toJSON()['Resources'][logicalId(n.queue)] as { DeletionPolicy: string };
    expect(resource.DeletionPolicy).toBe('Delete');
  });
});

describe('SES event rule (opt-in: sesEventBridgeRule)', () => {
  const { stack: ruleStack, template } = synth({ sesEventBridgeRule: true });
  const rule = ruleStack.notifier;
  const sesEventRuleDeadLetterQueue = () => rule.deliveryStatus.sesEventRuleDeadLetterQueue ?? fail('no rule dead-letter queue');

  it('is absent by default: no SES rule on the default bus', () => {
    expect(n.deliveryStatus.sesEventRule).toBeUndefined();
    expect(n.alarms[ALARM.sesEventRuleDeadLetters]).toBeUndefined();
  });

  it("sends what it cannot hand to the status function to its own dead-letter queue", () => {
    template.hasResourceProperties('AWS::Events::Rule', Match.objectLike({
      EventPattern: Match.objectLike({ source: ['aws.ses'] }),
      Targets: [Match.objectLike({
        Arn: { 'Fn::GetAtt': [logicalId(rule.statusFunction), 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(sesEventRuleDeadLetterQueue()), 'Arn'] } },
      })],
    }));
  });

  it('lets EventBridge send to that queue, for this rule only', () => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', Match.objectLike({
      Queues: [{ Ref: logicalId(sesEventRuleDeadLetterQueue()) }],
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({
          Action: 'sqs:SendMessage',
          Principal: { Service: 'events.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalId(rule.deliveryStatus.sesEventRule ?? fail('no rule')), 'Arn'] } } },
        })]),
      }),
    }));
  });

  it('alarms when that queue holds a message', () => {
    expect(propertiesOf(template, rule.alarms[ALARM.sesEventRuleDeadLetters]!)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(sesEventRuleDeadLetterQueue()), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 0,
    });
  });
});

describe('concurrency', () => {
  it('reserves none for the status function unless asked: a new account cannot reserve any (test/cdk/first-deploy.test.ts)', () => {
    expect(propertiesOf(template, n.statusFunction)['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it('takes the status bound from props', () => {
    const s = synth({ statusReservedConcurrency: 20 });
    expect(propertiesOf(s.template, s.stack.notifier.statusFunction)['ReservedConcurrentExecutions']).toBe(20);
  });

  it('reserves none for the sender unless asked', () => {
    expect(propertiesOf(template, n.senderFunction)['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it("reserves the sender's concurrency when given", () => {
    const s = synth({ senderReservedConcurrency: 12, maxConcurrency: 12, lanes: false });
    expect(propertiesOf(s.template, s.stack.notifier.senderFunction)['ReservedConcurrentExecutions']).toBe(12);
  });

  it("with lanes, reserves it for the bulk lane's sender (whose maximum concurrency is maxConcurrency)", () => {
    const s = synth({ senderReservedConcurrency: 12, maxConcurrency: 12 });
    const [urgent, bulk] = s.stack.notifier.lanes;
    expect(propertiesOf(s.template, bulk!.senderFunction)['ReservedConcurrentExecutions']).toBe(12);
    expect(propertiesOf(s.template, urgent!.senderFunction)['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it("fails if the sender's reserved concurrency is below maxConcurrency", () => {
    expect(errorOf({ senderReservedConcurrency: 5, maxConcurrency: 10 })).toMatch(
      /senderReservedConcurrency \(5\) must be at least maxConcurrency \(10\)/,
    );
  });

  it('fails if a reserved concurrency is not a whole number from 1 to 1000', () => {
    expect(errorOf({ statusReservedConcurrency: 0 })).toMatch(/statusReservedConcurrency \(0\) must be a whole number from 1 to 1000/);
    expect(errorOf({ senderReservedConcurrency: 2.5 })).toMatch(/senderReservedConcurrency \(2\.5\) must be a whole number/);
  });
});

function fail(message: string): never {
  throw new Error(message);
}
