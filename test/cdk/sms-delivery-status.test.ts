import { Match } from 'aws-cdk-lib/assertions';
import * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { build, logicalId, propertiesOf, resolveDummy, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

/** One statement of an IAM policy document. */
interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource?: unknown;
}

function fail(message: string): never {
  throw new Error(message);
}

describe('SNS SMS delivery-status logs', () => {
  const groupName = (suffix = '') => `sns/dummy-AWS::Region/dummy-AWS::AccountId/DirectPublishToPhoneNumber${suffix}`;

  it('are not consumed by default: no subscription filter, no custom resource', () => {
    template.resourceCountIs('AWS::Logs::SubscriptionFilter', 0);
    // The one account setting by default is the SMS spend limit.
    const calls = Object.values(resourcesOfType(template, 'Custom::AWS')).map((r) => JSON.stringify(r));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain('MonthlySpendLimit');
    expect(n.deliveryStatus.smsLogs).toBeUndefined();
  });

  describe('when enabled', () => {
    const { stack: s, template: t } = synth({ smsDeliveryStatusLogs: true });
    const resources = t.toJSON()['Resources'] as Record<string, { DependsOn?: string[]; Properties: Record<string, unknown> }>;

    it('subscribes the status function to the success and failure log groups, every line', () => {
      const filters = Object.values(resourcesOfType(t, 'AWS::Logs::SubscriptionFilter'));
      expect(filters.map((f) => resolveDummy(f['LogGroupName'])).sort()).toEqual([groupName(), groupName('/Failure')]);
      for (const filter of filters) {
        expect(filter['DestinationArn']).toEqual({ 'Fn::GetAtt': [logicalId(s.notifier.statusFunction), 'Arn'] });
        expect(filter['FilterPattern']).toBe('');
      }
    });

    it('lets CloudWatch Logs invoke the function from those two log groups only', () => {
      const permissions = Object.values(resourcesOfType(t, 'AWS::Lambda::Permission')).filter(
        (p) => p['Principal'] === 'logs.amazonaws.com',
      );
      expect(permissions.map((p) => resolveDummy(p['SourceArn'])).sort()).toEqual([
        `arn:dummy-AWS::Partition:logs:dummy-AWS::Region:dummy-AWS::AccountId:log-group:${groupName()}/Failure:*`,
        `arn:dummy-AWS::Partition:logs:dummy-AWS::Region:dummy-AWS::AccountId:log-group:${groupName()}:*`,
      ]);
    });

    it('creates each log group only if it is missing, never deletes it, and attaches the filter afterwards', () => {
      const smsLogs = s.notifier.deliveryStatus.smsLogs ?? fail('no SMS logs');
      for (const [which, suffix] of [
        ['Success', ''],
        ['Failure', '/Failure'],
      ] as const) {
        const ensure = smsLogs.node.findChild(`Ensure${which}LogGroup`);
        const ensureId = logicalId(ensure.node.findChild('Setting'));
        const resource = resources[ensureId] ?? fail(`no ${ensureId}`);
        const create = JSON.parse(resolveDummy(resource.Properties['Create'])) as Record<string, unknown>;
        expect(create).toEqual({
          service: 'CloudWatchLogs',
          action: 'createLogGroup',
          parameters: { logGroupName: groupName(suffix) },
          physicalResourceId: { id: `sns-sms-delivery-status-${which.toLowerCase()}-log-group` },
          ignoreErrorCodesMatching: 'ResourceAlreadyExistsException',
        });
        expect(resource.Properties['Delete']).toBeUndefined();
        const filter = smsLogs.filters[which === 'Success' ? 0 : 1] ?? fail('no filter');
        expect(resources[logicalId(filter)]?.DependsOn).toContain(ensureId);
        const policy = propertiesOf(t, ensure.node.findChild('Role').node.findChild('DefaultPolicy'));
        const arn = `arn:dummy-AWS::Partition:logs:dummy-AWS::Region:dummy-AWS::AccountId:log-group:${groupName(suffix)}`;
        const statements = (policy['PolicyDocument'] as { Statement: Statement[] }).Statement.filter((x) => x.Sid !== 'WriteOwnLogs');
        expect(statements).toEqual([expect.objectContaining({ Action: 'logs:CreateLogGroup', Effect: 'Allow' })]);
        const [statement] = statements;
        expect((statement?.Resource as unknown[]).map(resolveDummy)).toEqual([arn, `${arn}:*`]);
      }
    });

    it('does not touch the account setting unless a sampling rate is given', () => {
      expect(JSON.stringify(t.toJSON())).not.toContain('DeliveryStatusIAMRole');
      expect(JSON.stringify(t.toJSON())).not.toContain('DeliveryStatusSuccessSamplingRate');
      expect(s.notifier.deliveryStatus.smsLogs?.loggingRole).toBeUndefined();
    });
  });

  describe('with account logging managed', () => {
    const { stack: s, template: t } = synth({ smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: 50 });
    const role = s.notifier.deliveryStatus.smsLogs?.loggingRole ?? fail('no logging role');
    const roleArn = { 'Fn::GetAtt': [logicalId(role), 'Arn'] };

    it('sets DeliveryStatusIAMRole and DeliveryStatusSuccessSamplingRate through SNS SetSMSAttributes', () => {
      const calls = Object.values(resourcesOfType(t, 'Custom::AWS')).filter((r) => JSON.stringify(r).includes('DeliveryStatusIAMRole'));
      expect(calls).toHaveLength(1);
      const create = JSON.parse(resolveDummy(calls[0]?.['Create'])) as Record<string, unknown>;
      expect(create).toMatchObject({
        service: 'SNS',
        action: 'setSMSAttributes',
        parameters: {
          attributes: { DeliveryStatusIAMRole: `dummy-${logicalId(role)}-Arn`, DeliveryStatusSuccessSamplingRate: '50' },
        },
      });
      expect(calls[0]?.['Delete']).toBeUndefined();
      t.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            Match.objectLike({ Sid: 'WriteOwnLogs' }),
            { Action: 'sns:SetSMSAttributes', Effect: 'Allow', Resource: '*' },
            { Action: 'iam:PassRole', Effect: 'Allow', Resource: roleArn },
          ],
        },
      });
    });

    it('creates a retained role SNS assumes, writing only the SMS delivery-status log groups', () => {
      const resource = (t.toJSON()['Resources'] as Record<string, Record<string, unknown>>)[logicalId(role)];
      expect(resource?.['DeletionPolicy']).toBe('Retain');
      const props = propertiesOf(t, role);
      expect(props['AssumeRolePolicyDocument']).toMatchObject({
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      });
      const [policy] = props['Policies'] as { PolicyDocument: { Statement: Statement[] } }[];
      expect(policy?.PolicyDocument.Statement.map((x) => [x.Action, resolveDummy(x.Resource)])).toEqual([
        [
          ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents', 'logs:PutMetricFilter', 'logs:PutRetentionPolicy'],
          `arn:dummy-AWS::Partition:logs:dummy-AWS::Region:dummy-AWS::AccountId:log-group:${groupName()}*`,
        ],
      ]);
    });
  });

  it('rejects settings that cannot work', () => {
    expect(() => build({ smsDeliveryStatusLogs: true, smsEnabled: false })).toThrow(/smsDeliveryStatusLogs needs smsEnabled/);
    expect(() => build({ smsDeliveryStatusSuccessSamplingPercent: 100 })).toThrow(/needs smsDeliveryStatusLogs: true/);
    for (const bad of [101, -1, 2.5]) {
      expect(() => build({ smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: bad })).toThrow(
        new RegExp(`smsDeliveryStatusSuccessSamplingPercent \\(${bad}\\) must be an integer from 0 to 100`),
      );
    }
  });
});

describe('the SNS SMS delivery-status log groups (they hold phone numbers)', () => {
  const { template: t } = synth({ smsDeliveryStatusLogs: true, logRetention: logs.RetentionDays.TWO_WEEKS });
  const call = (action: string) =>
    Object.values(resourcesOfType(t, 'Custom::AWS'))
      .map((r) => JSON.parse(resolveDummy(r['Create'])) as { action: string; parameters: Record<string, unknown> })
      .filter((c) => c.action === action);

  it('get the functions\' log retention, each', () => {
    const calls = call('putRetentionPolicy');
    expect(calls.map((c) => c.parameters)).toEqual([
      { logGroupName: expect.stringMatching(/DirectPublishToPhoneNumber$/), retentionInDays: 14 },
      { logGroupName: expect.stringMatching(/DirectPublishToPhoneNumber\/Failure$/), retentionInDays: 14 },
    ]);
  });

  it("get the functions' masking policy, each, in the form CloudFormation gives the functions' log groups", () => {
    const calls = call('putDataProtectionPolicy');
    expect(calls.map((c) => c.parameters['logGroupIdentifier'])).toEqual([
      expect.stringMatching(/DirectPublishToPhoneNumber$/),
      expect.stringMatching(/DirectPublishToPhoneNumber\/Failure$/),
    ]);
    const functionsPolicy = deepDummy(propertiesOf(template, n.senderLogGroup)['DataProtectionPolicy']);
    for (const c of calls) expect(JSON.parse(String(c.parameters['policyDocument']))).toEqual(functionsPolicy);
  });
});

/** {@link resolveDummy} at every depth: what CloudFormation would hand over, with dummy values for references. */
function deepDummy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepDummy);
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) return resolveDummy(value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepDummy(v)]));
  }
  return value;
}
