import { Match, Template } from 'aws-cdk-lib/assertions';
import { Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { notifierPropsFromContext } from '../../lib/context-config';
import { IdempotentNotifier } from '../../lib/notifier';
import { ENV } from '../../functions/core/sender-config';
import { BASE_PROPS, EUM_PROPS, STUB_ENTRY, errorOf, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

// Issue 53: what would break the first real deploy, a redeploy, or the SMS evidence in an account. Each test is named
// after the defect an outside review demonstrated on the template.

const IMPORTED_KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/0e9b8c5a-1f2d-4e3c-9a8b-7c6d5e4f3a2b';

/** The event source mapping that drains the End User Messaging events queue into the status function. */
function smsEventsMapping(template: Template, queueLogicalId: string): Record<string, unknown> {
  const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
  const found = mappings.find((m) => JSON.stringify(m['EventSourceArn']) === JSON.stringify({ 'Fn::GetAtt': [queueLogicalId, 'Arn'] }));
  if (!found) throw new Error('no event source mapping on the SMS events queue');
  return found;
}

describe('defect 1: the status function always reserved 5 concurrent executions, which a new account (quota 10) cannot give', () => {
  // Synthesized outside the test: the first synth of a file loads aws-cdk-lib, which may outlast a test's timeout.
  const { template } = synth();

  it('the default template reserves concurrency for no function', () => {
    const reserved = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).filter(([, fn]) => fn['ReservedConcurrentExecutions'] !== undefined);
    expect(reserved.map(([id]) => id)).toEqual([]);
  });

  it('reserves the status function\'s concurrency only when asked (statusReservedConcurrency)', () => {
    const s = synth({ statusReservedConcurrency: 20 });
    expect(propertiesOf(s.template, s.stack.notifier.statusFunction)['ReservedConcurrentExecutions']).toBe(20);
  });
});

describe("defect 2: the End User Messaging events' event source had no maximum concurrency, while its function could take 5", () => {
  it('caps the SMS events source at its default maximum concurrency (5)', () => {
    const { template, stack } = synth(EUM_PROPS);
    const mapping = smsEventsMapping(template, logicalId(stack.notifier.endUserMessaging!.queue));
    expect(mapping['ScalingConfig']).toEqual({ MaximumConcurrency: 5 });
  });

  it("keeps the status function's two event sources (SES events, SMS events) within a reserved status concurrency together", () => {
    const { template, stack } = synth({ ...EUM_PROPS, statusReservedConcurrency: 6 });
    expect(smsEventsMapping(template, logicalId(stack.notifier.endUserMessaging!.queue))['ScalingConfig']).toEqual({ MaximumConcurrency: 3 });
    expect(smsEventsMapping(template, logicalId(stack.notifier.deliveryStatus.sesEvents.queue))['ScalingConfig']).toEqual({ MaximumConcurrency: 3 });
  });

  it('gives the SES events source the whole reservation when it is the only one', () => {
    const { template, stack } = synth({ statusReservedConcurrency: 3 });
    expect(smsEventsMapping(template, logicalId(stack.notifier.deliveryStatus.sesEvents.queue))['ScalingConfig']).toEqual({ MaximumConcurrency: 3 });
  });

  it('takes statusMaxConcurrency from props', () => {
    const { template, stack } = synth({ ...EUM_PROPS, statusMaxConcurrency: 8 });
    expect(smsEventsMapping(template, logicalId(stack.notifier.endUserMessaging!.queue))['ScalingConfig']).toEqual({ MaximumConcurrency: 8 });
  });

  it('fails if statusMaxConcurrency exceeds statusReservedConcurrency, or is outside Lambda\'s 2 to 1000', () => {
    expect(errorOf({ ...EUM_PROPS, statusReservedConcurrency: 6, statusMaxConcurrency: 4 })).toMatch(
      /statusMaxConcurrency \(4\) times the status function's 2 SQS event source\(s\) must be at most statusReservedConcurrency \(6\)/,
    );
    expect(errorOf({ statusReservedConcurrency: 4, statusMaxConcurrency: 6 })).toMatch(
      /statusMaxConcurrency \(6\) times the status function's 1 SQS event source\(s\) must be at most statusReservedConcurrency \(4\)/,
    );
    expect(errorOf({ ...EUM_PROPS, statusMaxConcurrency: 1 })).toMatch(/statusMaxConcurrency \(1\) must be a whole number from 2 to 1000/);
    expect(errorOf({ ...EUM_PROPS, statusReservedConcurrency: 3 })).toMatch(/statusReservedConcurrency \(3\) must be at least 4: each of the status function's 2 SQS event source\(s\)/);
    expect(errorOf({ statusReservedConcurrency: 1 })).toMatch(/statusReservedConcurrency \(1\) must be at least 2: each of the status function's 1 SQS event source\(s\)/);
  });
});

describe('defect 3: the contact list was retained even when its own creation rolled back, and a redeploy had no path', () => {
  it('is RetainExceptOnCreate: a failed first deploy deletes it, a deleted stack keeps it', () => {
    const { template, stack } = synth();
    const list = template.toJSON()['Resources'][logicalId(stack.notifier.contactList!)] as Record<string, unknown>;
    expect(list).toMatchObject({ DeletionPolicy: 'RetainExceptOnCreate', UpdateReplacePolicy: 'Retain' });
  });

  it('redeploys after `cdk destroy` by adopting the kept list: notifier:createContactList false creates none and sends with its name', () => {
    const stack = new Stack(newApp({ 'notifier:createContactList': false }), 'Redeploy');
    const props = notifierPropsFromContext(stack);
    const notifier = new IdempotentNotifier(stack, 'Notifier', { ...props, senderEntry: STUB_ENTRY, reclaimerEntry: STUB_ENTRY, statusEntry: STUB_ENTRY });
    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::SES::ContactList', 0);
    expect(notifier.contactList).toBeUndefined();
    for (const lane of notifier.lanes) expect(lane.environment[ENV.sesContactListName]).toBe('notifier');
    expect(notifier.environment[ENV.sesContactListName]).toBe('notifier');
  });
});

describe('defect 4: with an imported encryptionKeyArn, End User Messaging was never allowed to use the events topic\'s key', () => {
  function withImportedKey(): { template: Template; stack: Stack; notifier: IdempotentNotifier } {
    const stack = new Stack(newApp(), 'Imported');
    const notifier = new IdempotentNotifier(stack, 'Notifier', {
      ...BASE_PROPS,
      ...EUM_PROPS,
      encryptionKey: kms.Key.fromKeyArn(stack, 'Imported', IMPORTED_KEY_ARN),
    });
    return { stack, notifier, template: Template.fromStack(stack) };
  }

  it('gives the events topic a key of its own, whose policy lets sms-voice.amazonaws.com use it', () => {
    const { template, notifier } = withImportedKey();
    const topicKey = propertiesOf(template, notifier.endUserMessaging!.topic)['KmsMasterKeyId'];
    expect(JSON.stringify(topicKey)).not.toContain(IMPORTED_KEY_ARN);
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'sms-voice.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]) },
    });
  });

  it('gives it a key of its own also beside a key defined in the same app: the events queue under that key names the topic in its policy, a cycle', () => {
    const stack = new Stack(newApp(), 'Owned');
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const notifier = new IdempotentNotifier(stack, 'Notifier', { ...BASE_PROPS, ...EUM_PROPS, encryptionKey: key });
    const template = Template.fromStack(stack);
    expect(propertiesOf(template, notifier.endUserMessaging!.topic)['KmsMasterKeyId']).not.toEqual({ 'Fn::GetAtt': [logicalId(key), 'Arn'] });
    expect(propertiesOf(template, notifier.endUserMessaging!.queue)['KmsMasterKeyId']).toEqual({ 'Fn::GetAtt': [logicalId(key), 'Arn'] });
  });
});
