import { describe, expect, it } from 'vitest';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import type { NotifierStack } from '../../lib/notifier-stack';
import { TEST_EMAIL_DOMAIN, TEST_EMAIL_FROM, logicalId, propertiesOf, resourcesOfType, synth } from './helpers';

interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource?: unknown;
  readonly NotResource?: unknown;
  readonly Condition?: unknown;
}

/** The statements of the default policy attached to a function's role. */
function statementsOf(stack: NotifierStack, which: 'senderFunction' | 'reclaimerFunction'): Statement[] {
  const template = synthCache.get(stack);
  if (!template) throw new Error('unknown stack');
  const role = stack.notifier[which].role;
  if (!role) throw new Error('no role');
  const roleId = logicalId(role);
  const policies = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).filter((p) =>
    JSON.stringify(p['Roles']).includes(`"${roleId}"`),
  );
  return policies.flatMap((p) => (p['PolicyDocument'] as { Statement: Statement[] }).Statement);
}

const synthCache = new Map<NotifierStack, ReturnType<typeof synth>['template']>();
function stackWith(props: Parameters<typeof synth>[0] = {}): NotifierStack {
  const { stack, template } = synth(props);
  synthCache.set(stack, template);
  return stack;
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const withAction = (statements: Statement[], action: string): Statement[] =>
  statements.filter((s) => actionsOf(s).includes(action));

const stack = stackWith();
const n = stack.notifier;
const tableArn = { 'Fn::GetAtt': [logicalId(n.table), 'Arn'] };

describe.each(['senderFunction', 'reclaimerFunction'] as const)('%s role', (which) => {
  const statements = statementsOf(stack, which);

  it('allows only the item actions its code calls on the ledger table itself', () => {
    const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')) && s.Sid !== 'QueryPendingIndex');
    expect(table).toEqual([
      {
        Sid: 'LedgerItemAccess',
        Effect: 'Allow',
        Action:
          which === 'senderFunction'
            ? ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']
            : ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: tableArn,
      },
    ]);
  });

  it('is assumable by Lambda for this account only (aws:SourceAccount)', () => {
    const role = stack.notifier[which].role ?? fail('no role');
    expect(propertiesOf(synthCache.get(stack) ?? fail('no template'), role)['AssumeRolePolicyDocument']).toEqual({
      Version: '2012-10-17',
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

  it('allows ses:SendEmail only as the identity (address and domain) and with the configuration set', () => {
    const [send, ...more] = withAction(statements, 'ses:SendEmail');
    expect(more).toHaveLength(0);
    expect(send?.Action).toBe('ses:SendEmail');
    const resources = JSON.stringify(send?.Resource);
    expect(resources).toContain(`:identity/${TEST_EMAIL_FROM}"`);
    expect(resources).toContain(`:identity/${TEST_EMAIL_DOMAIN}"`);
    expect(resources).toContain(`":configuration-set/",{"Ref":"${logicalId(n.configurationSet)}"}`);
    expect(resources).not.toContain('identity/*');
    expect(send?.Condition).toEqual({ StringEquals: { 'ses:FromAddress': TEST_EMAIL_FROM } });
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('ses:')).sort()).toEqual(['ses:GetAccount', 'ses:SendEmail']);
  });

  it('allows sns:Publish to phone numbers without granting any topic', () => {
    const sms = withAction(statements, 'sns:Publish').filter((s) => s.NotResource !== undefined);
    expect(sms).toEqual([
      {
        Sid: 'PublishSmsToPhoneNumbersOnly',
        Effect: 'Allow',
        Action: 'sns:Publish',
        NotResource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:*:*:*']] },
      },
    ]);
  });

  it('allows sns:Publish on platform endpoints only, never on "*" or on topics', () => {
    const publish = withAction(statements, 'sns:Publish');
    for (const s of publish) {
      expect(s.Resource).not.toBe('*');
      expect(JSON.stringify(s.Resource ?? '')).not.toMatch(/:sns:[^"]*:\*"?$/);
    }
    const push = publish.filter((s) => s.Resource !== undefined);
    expect(push).toHaveLength(1);
    expect(push[0]?.Resource).toBe('arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/*');
  });

  it('writes only to its own log group and has no managed policies and no wildcard actions', () => {
    const logs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    const logGroup = which === 'senderFunction' ? n.senderLogGroup : n.reclaimerLogGroup;
    expect(logs).toEqual([
      {
        Sid: 'WriteOwnLogs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logicalId(logGroup), 'Arn'] },
      },
    ]);
    expect(statements.flatMap(actionsOf).filter((a) => a.includes('*'))).toEqual([]);
    expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
    // The actions on "*": SES has no resource for the account's sending quota, SNS none for its SMS opt-out list.
    expect(statements.filter((s) => s.Resource === '*').map((s) => [s.Sid, s.Action])).toEqual([
      ['ReadSesSendingQuota', 'ses:GetAccount'],
      ['CheckSmsOptOut', 'sns:CheckIfPhoneNumberIsOptedOut'],
    ]);
  });

  it('may ask SNS whether a number opted out only with SMS on (a policy of its own), nothing else of the opt-out list', () => {
    expect(withAction(statements, 'sns:CheckIfPhoneNumberIsOptedOut')).toEqual([
      { Sid: 'CheckSmsOptOut', Effect: 'Allow', Action: 'sns:CheckIfPhoneNumberIsOptedOut', Resource: '*' },
    ]);
    expect(statements.flatMap(actionsOf).filter((a) => /OptInPhoneNumber|ListPhoneNumbersOptedOut|SetSMSAttributes/.test(a))).toEqual([]);
  });

  it('may read the SES sending quota (the default e-mail send rate), nothing else of the account', () => {
    expect(withAction(statements, 'ses:GetAccount')).toEqual([
      { Sid: 'ReadSesSendingQuota', Effect: 'Allow', Action: 'ses:GetAccount', Resource: '*' },
    ]);
  });
});

describe('role differences', () => {
  it('lets only the sender PutItem (claim a new row); the reclaimer only takes over existing rows', () => {
    expect(withAction(statementsOf(stack, 'senderFunction'), 'dynamodb:PutItem')).toHaveLength(1);
    expect(withAction(statementsOf(stack, 'reclaimerFunction'), 'dynamodb:PutItem')).toEqual([]);
  });

  it('lets only the reclaimer Query, and only the pending index', () => {
    expect(withAction(statementsOf(stack, 'senderFunction'), 'dynamodb:Query')).toEqual([]);
    expect(withAction(statementsOf(stack, 'reclaimerFunction'), 'dynamodb:Query')).toEqual([
      {
        Sid: 'QueryPendingIndex',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [tableArn, `/index/${LEDGER_TABLE.pendingIndex.name}`]] },
      },
    ]);
  });

  it('lets only the sender send, and only SendMessage, to the dead-letter queue', () => {
    expect(withAction(statementsOf(stack, 'senderFunction'), 'sqs:SendMessage')).toEqual([
      {
        Sid: 'ForwardInvalidEventsToDeadLetterQueue',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [logicalId(n.deadLetterQueue), 'Arn'] },
      },
    ]);
    expect(statementsOf(stack, 'reclaimerFunction').flatMap(actionsOf).filter((a) => a.startsWith('sqs:'))).toEqual([]);
  });

  it('lets only the sender back a throttled record off (ChangeMessageVisibility on its queue)', () => {
    expect(withAction(statementsOf(stack, 'senderFunction'), 'sqs:ChangeMessageVisibility')[0]?.Resource).toEqual({
      'Fn::GetAtt': [logicalId(n.queue), 'Arn'],
    });
    expect(withAction(statementsOf(stack, 'reclaimerFunction'), 'sqs:ChangeMessageVisibility')).toEqual([]);
  });

  it('lets only the sender consume the queue', () => {
    const consume = 'sqs:ReceiveMessage';
    expect(withAction(statementsOf(stack, 'senderFunction'), consume)[0]?.Resource).toEqual({
      'Fn::GetAtt': [logicalId(n.queue), 'Arn'],
    });
    expect(withAction(statementsOf(stack, 'reclaimerFunction'), consume)).toEqual([]);
  });
});

describe('configurable scopes', () => {
  it('names a configured SES identity only', () => {
    const s = stackWith({ sesIdentity: 'mail.acme-shop.io', emailFrom: 'Example <no-reply@mail.acme-shop.io>' });
    const [send] = withAction(statementsOf(s, 'senderFunction'), 'ses:SendEmail');
    const resources = JSON.stringify(send?.Resource);
    expect(resources).toContain(':identity/mail.acme-shop.io"');
    expect(resources).not.toContain('identity/no-reply@');
    expect(send?.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@mail.acme-shop.io' } });
  });

  it('names the existing configuration set', () => {
    const s = stackWith({ sesConfigurationSetName: 'prod-set' });
    const [send] = withAction(statementsOf(s, 'senderFunction'), 'ses:SendEmail');
    expect(JSON.stringify(send?.Resource)).toContain(':configuration-set/prod-set"');
  });

  it('limits push to the endpoints of the configured platform applications', () => {
    const s = stackWith({ pushPlatformApplications: ['arn:aws:sns:eu-west-1:123456789012:app/APNS/shop', 'arn:aws:sns:eu-west-1:123456789012:app/GCM/shop'] });
    const push = withAction(statementsOf(s, 'senderFunction'), 'sns:Publish').filter((x) => x.Resource !== undefined);
    expect(push.map((x) => x.Resource)).toEqual([
      ['arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/shop/*', 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop/*'],
    ]);
  });

  it('grants no sns:Publish at all when SMS and push are disabled', () => {
    const s = stackWith({ smsEnabled: false, smsMonthlySpendLimitUsd: undefined, pushEnabled: false });
    expect(withAction(statementsOf(s, 'senderFunction'), 'sns:Publish')).toEqual([]);
  });
});

function fail(message: string): never {
  throw new Error(message);
}
