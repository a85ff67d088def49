import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { notifierPropsFromContext } from '../../lib/context-config';
import { IdempotentNotifier } from '../../lib/notifier';
import { BASE_PROPS, logicalId, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

/** A notifier in a stack that also defines the key. */
function withKey(extra: Partial<typeof BASE_PROPS> = {}) {
  const stack = new Stack(newApp(), 'WithKey');
  const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const notifier = new IdempotentNotifier(stack, 'Notifier', {
    ...BASE_PROPS,
    encryptionKey: key,
    smsDeliveryStatusLogs: true,
    smsDeliveryStatusSuccessSamplingPercent: 100,
    ...extra,
  });
  return { stack, key, notifier, template: Template.fromStack(stack), keyArn: { 'Fn::GetAtt': [logicalId(key), 'Arn'] } };
}

describe('default encryption (no key given)', () => {
  const { template } = synth();

  it('keeps the ledger on the AWS managed key, the queues on SSE-SQS and the log groups on CloudWatch Logs encryption', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() } });
    for (const queue of Object.values(resourcesOfType(template, 'AWS::SQS::Queue'))) {
      expect(queue).toMatchObject({ SqsManagedSseEnabled: true });
      expect(queue['KmsMasterKeyId']).toBeUndefined();
    }
    for (const group of Object.values(resourcesOfType(template, 'AWS::Logs::LogGroup'))) expect(group['KmsKeyId']).toBeUndefined();
  });
});

describe('customer-managed key (encryptionKey)', () => {
  const { notifier, template, keyArn, key } = withKey();

  it('encrypts the ledger table with the key', () => {
    expect(propertiesOf(template, notifier.table)['SSESpecification']).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: keyArn,
    });
  });

  it('encrypts every queue with the key (main, dead-letter, failed status events, SES events and their dead letters, outcome and fallback batches given up on)', () => {
    const queues = resourcesOfType(template, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(9); // each lane's queue and DLQ, failed status events, the SES events queue and its DLQ, outcome batches, fallback batches
    for (const queue of Object.values(queues)) expect(queue['KmsMasterKeyId']).toEqual(keyArn);
  });

  it('encrypts every log group with the key (functions and custom resources)', () => {
    const groups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    expect(Object.keys(groups)).toHaveLength(14); // 6 functions (two lane senders, the outcome publisher, the fallback trigger), 8 account-setting custom resources (3 per SNS log group, logging, spend limit)
    for (const group of Object.values(groups)) expect(group['KmsKeyId']).toEqual(keyArn);
  });

  it.each(['senderFunction', 'reclaimerFunction', 'statusFunction'] as const)('grants the %s encrypt and decrypt on the key', (which) => {
    const roleId = logicalId(notifier[which].role ?? fail('no role'));
    const statements = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p['Roles']).includes(`"${roleId}"`))
      .flatMap((p) => (p['PolicyDocument'] as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement);
    const onKey = statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify(keyArn));
    const actions = onKey.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']));
  });

  it("lets CloudWatch Logs use the key, for this account's log groups only", () => {
    const policy = propertiesOf(template, key)['KeyPolicy'] as { Statement: Record<string, unknown>[] };
    const statement = policy.Statement.find((s) => s['Sid'] === 'AllowCloudWatchLogsOfThisAccount');
    expect(statement).toMatchObject({
      Effect: 'Allow',
      Principal: { Service: { 'Fn::Join': ['', ['logs.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } },
      Condition: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':logs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':log-group:*'],
            ],
          },
        },
      },
    });
  });

  it('lets queueEncryptionKey override the key for the queues only', () => {
    const s = new Stack(newApp(), 'TwoKeys');
    const key = new kms.Key(s, 'Key', { enableKeyRotation: true });
    const queueKey = new kms.Key(s, 'QueueKey', { enableKeyRotation: true });
    const n = new IdempotentNotifier(s, 'Notifier', { ...BASE_PROPS, encryptionKey: key, queueEncryptionKey: queueKey });
    const t = Template.fromStack(s);
    for (const queue of Object.values(resourcesOfType(t, 'AWS::SQS::Queue'))) {
      expect(queue['KmsMasterKeyId']).toEqual({ 'Fn::GetAtt': [logicalId(queueKey), 'Arn'] });
    }
    expect(JSON.stringify(propertiesOf(t, n.table)['SSESpecification'])).toContain(logicalId(key));
  });

  it('is read from the context as a key ARN', () => {
    const stack = new Stack(newApp({ 'notifier:encryptionKeyArn': 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab' }), 'Ctx');
    expect(notifierPropsFromContext(stack).encryptionKey?.keyArn).toBe(
      'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    );
  });
});

function fail(message: string): never {
  throw new Error(message);
}
