import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { notifierPropsFromContext } from '../../lib/context-config';
import { EUM_EVENTS_MAX_RECEIVE_COUNT } from '../../lib/end-user-messaging-sms';
import { IdempotentNotifier } from '../../lib/notifier';
import { EUM_PROPS, STUB_ENTRY, TEST_EUM_POOL_ARN, errorOf, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

const eum = () => synth(EUM_PROPS);

/** Every statement of every IAM policy in the template. */
function statements(template: Template): Record<string, unknown>[] {
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap(
    (policy) => (policy as { PolicyDocument: { Statement: Record<string, unknown>[] } }).PolicyDocument.Statement,
  );
}

describe('smsProvider: end-user-messaging', () => {
  it('creates the configuration set with one event destination: every SMS event to the events topic', () => {
    const { template, stack } = eum();
    const set = stack.notifier.endUserMessaging!;
    template.hasResourceProperties('AWS::SMSVOICE::ConfigurationSet', {
      ConfigurationSetName: set.configurationSetName,
      EventDestinations: [
        { EventDestinationName: 'notifier-delivery-status', Enabled: true, MatchingEventTypes: ['TEXT_ALL'], SnsDestination: { TopicArn: { Ref: logicalId(set.topic) } } },
      ],
    });
  });

  it('lets End User Messaging publish to the events topic for this account and configuration set only, and use its key', () => {
    const { template, stack } = eum();
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'sms-voice.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    const topic = propertiesOf(template, stack.notifier.endUserMessaging!.topic);
    expect(topic['KmsMasterKeyId']).toBeDefined();
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'sms-voice.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]) },
    });
  });

  it('carries the events durably: raw delivery into a queue with a dead-letter queue, drained by the status function', () => {
    const { template, stack } = eum();
    const set = stack.notifier.endUserMessaging!;
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      RawMessageDelivery: true,
      TopicArn: { Ref: logicalId(set.topic) },
      Endpoint: { 'Fn::GetAtt': [logicalId(set.queue), 'Arn'] },
    });
    expect(propertiesOf(template, set.queue)['RedrivePolicy']).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(set.deadLetterQueue), 'Arn'] },
      maxReceiveCount: EUM_EVENTS_MAX_RECEIVE_COUNT,
    });
    // Six function timeouts (30 s): the status function never outlives a receive.
    expect(propertiesOf(template, set.queue)['VisibilityTimeout']).toBe(180);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(set.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(stack.notifier.statusFunction) },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it('grants sms-voice:SendTextMessage on the configuration set and the origination identities only, and no SMS publish through SNS', () => {
    const { template, stack } = eum();
    const send = statements(template).filter((s) => s['Action'] === 'sms-voice:SendTextMessage');
    // Each lane's sender (urgent, bulk) and the reclaimer, nothing else.
    expect(send).toHaveLength(3);
    for (const statement of send) {
      const resources = statement['Resource'] as unknown[];
      expect(resources).toHaveLength(2);
      expect(resources).toContain(TEST_EUM_POOL_ARN);
      expect(JSON.stringify(resources.find((r) => r !== TEST_EUM_POOL_ARN))).toContain(`:configuration-set/${stack.notifier.endUserMessaging!.configurationSetName}`);
    }
    expect(statements(template).some((s) => 'NotResource' in s)).toBe(false);
  });

  it('tells the sender and the reclaimer which service, set, identity and MaxPrice', () => {
    const { template, stack } = eum();
    for (const fn of [stack.notifier.senderFunction, stack.notifier.reclaimerFunction]) {
      const variables = (propertiesOf(template, fn)['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables).toMatchObject({
        SMS_PROVIDER: 'end-user-messaging',
        SMS_CONFIGURATION_SET: stack.notifier.endUserMessaging!.configurationSetName,
        SMS_ORIGINATION_IDENTITY: TEST_EUM_POOL_ARN,
        SMS_MAX_PRICE: '0.10',
      });
    }
  });

  it('manages End User Messaging\'s own text spend limit, not SNS\'s', () => {
    const { template } = synth({ ...EUM_PROPS, smsMonthlySpendLimitUsd: 20 });
    const calls = JSON.stringify(resourcesOfType(template, 'Custom::AWS'));
    expect(calls).toContain('setTextMessageSpendLimitOverride');
    expect(calls).toContain('\\"MonthlyLimit\\":20');
    expect(calls).not.toContain('setSMSAttributes');
  });

  it('alarms on End User Messaging\'s spend and on dead-lettered events; SNS\'s SMS success rate does not apply', () => {
    const { stack, template } = eum();
    const alarms = stack.notifier.alarms;
    expect(alarms.SmsEventDeadLetters).toBeDefined();
    expect(alarms.SmsSuccessRate).toBeUndefined();
    expect(propertiesOf(template, alarms.SmsMonthToDateSpend!)).toMatchObject({ Namespace: 'AWS/SMSVoice', MetricName: 'TextMessageMonthlySpend' });
  });

  it('is not the default: a notifier without smsProvider texts through SNS and has no configuration set', () => {
    const { template, stack } = synth();
    expect(stack.notifier.endUserMessaging).toBeUndefined();
    template.resourceCountIs('AWS::SMSVOICE::ConfigurationSet', 0);
    expect(stack.notifier.alarms.SmsEventDeadLetters).toBeUndefined();
  });

  it('is chosen by the context key notifier:smsProvider', () => {
    const stack = new Stack(
      newApp({ 'notifier:smsProvider': 'end-user-messaging', 'notifier:smsOriginationIdentities': TEST_EUM_POOL_ARN, 'notifier:smsCountries': 'US', 'notifier:smsMonthlySpendLimitUsd': 5 }),
      'FromContext',
    );
    const props = notifierPropsFromContext(stack);
    expect(props).toMatchObject({ smsProvider: 'end-user-messaging', smsOriginationIdentities: [TEST_EUM_POOL_ARN] });
    new IdempotentNotifier(stack, 'Notifier', { ...props, senderEntry: STUB_ENTRY, reclaimerEntry: STUB_ENTRY, statusEntry: STUB_ENTRY, outcomesEntry: STUB_ENTRY });
    Template.fromStack(stack).resourceCountIs('AWS::SMSVOICE::ConfigurationSet', 1);
  });

  it('fails without origination identities, with one that is no identity ARN, with SNS logs, or a spend limit in cents', () => {
    const message = errorOf({ smsProvider: 'end-user-messaging', smsOriginationIdentities: ['pool-1'], smsDeliveryStatusLogs: true, smsMonthlySpendLimitUsd: 2.5 });
    expect(message).toContain('smsOriginationIdentities (pool-1) must be an sms-voice phone-number, sender-id or pool ARN');
    expect(message).toContain("smsDeliveryStatusLogs (true) reads SNS's SMS logs");
    expect(message).toContain('smsMonthlySpendLimitUsd (2.5) must be whole dollars');
    expect(errorOf({ smsProvider: 'end-user-messaging' })).toContain('smsOriginationIdentities is required');
    expect(errorOf({ ...EUM_PROPS, smsMaxPriceUsd: '1' })).toContain("smsMaxPriceUsd (1) must be US dollars per message part such as '0.10'");
  });

  it('fails when End User Messaging settings are given to SNS', () => {
    expect(errorOf({ smsOriginationIdentities: [TEST_EUM_POOL_ARN], smsMaxPriceUsd: '0.10' })).toContain(
      "smsOriginationIdentities, smsMaxPriceUsd need smsProvider: 'end-user-messaging' (smsProvider: 'sns')",
    );
  });
});
