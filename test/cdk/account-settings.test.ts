import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccountSdkCall, AWS_CALL_HANDLER_DIR } from '../../lib/account-settings';
import { logicalId, propertiesOf, resourcesOfType, synth } from './helpers';

const managed = synth({ smsMonthlySpendLimitUsd: 20, smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: 100 });
const calls = managed.stack.node.findAll().filter((c): c is AccountSdkCall => c instanceof AccountSdkCall);

interface Statement {
  readonly Sid?: string;
  readonly Action: string | string[];
  readonly Principal?: unknown;
  readonly Condition?: unknown;
}

const accountOnly = { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } };

describe('account-setting custom resources', () => {
  it('are eight when the spend limit and SMS delivery-status logging are managed', () => {
    const perGroup = ['Ensure', 'Retain', 'Mask'].flatMap((step) => [`${step}FailureLogGroup`, `${step}SuccessLogGroup`]);
    expect(calls.map((c) => c.node.id).sort()).toEqual(['AccountLogging', 'SmsMonthlySpendLimit', ...perGroup].sort());
    expect(Object.keys(resourcesOfType(managed.template, 'Custom::AWS'))).toHaveLength(8);
  });

  it('gives each custom resource its own function and role', () => {
    const tokens = new Set(
      Object.values(resourcesOfType(managed.template, 'Custom::AWS')).map((r) => JSON.stringify(r['ServiceToken'])),
    );
    expect(tokens.size).toBe(8);
    expect(new Set(calls.map((c) => logicalId(c.role))).size).toBe(8);
    for (const call of calls) {
      expect(propertiesOf(managed.template, call.fn)['Role']).toEqual({ 'Fn::GetAtt': [logicalId(call.role), 'Arn'] });
    }
  });

  it('grants each role only its own log group and its own call', () => {
    const actions = (call: AccountSdkCall): string[] => {
      const policy = propertiesOf(managed.template, call.role.node.findChild('DefaultPolicy'));
      return (policy['PolicyDocument'] as { Statement: Statement[] }).Statement.flatMap((s) =>
        Array.isArray(s.Action) ? s.Action : [s.Action],
      );
    };
    const byId = Object.fromEntries(calls.map((c) => [c.node.id, actions(c)]));
    const logs = ['logs:CreateLogStream', 'logs:PutLogEvents'];
    expect(byId).toEqual({
      SmsMonthlySpendLimit: [...logs, 'sns:SetSMSAttributes'],
      AccountLogging: [...logs, 'sns:SetSMSAttributes', 'iam:PassRole'],
      EnsureSuccessLogGroup: [...logs, 'logs:CreateLogGroup'],
      EnsureFailureLogGroup: [...logs, 'logs:CreateLogGroup'],
      RetainSuccessLogGroup: [...logs, 'logs:PutRetentionPolicy'],
      RetainFailureLogGroup: [...logs, 'logs:PutRetentionPolicy'],
      MaskSuccessLogGroup: [...logs, 'logs:PutDataProtectionPolicy'],
      MaskFailureLogGroup: [...logs, 'logs:PutDataProtectionPolicy'],
    });
  });

  it("runs the pinned aws-cdk-lib's AwsCustomResource handler, which reads the Create and Update calls we render", () => {
    const handler = readFileSync(join(AWS_CALL_HANDLER_DIR, 'index.js'), 'utf8');
    for (const property of ['ResourceProperties.Create', 'ResourceProperties.Update', 'ResourceProperties.InstallLatestAwsSdk']) {
      expect(handler).toContain(property);
    }
    for (const call of calls) {
      const props = propertiesOf(managed.template, call.resource);
      expect(Object.keys(props).sort()).toEqual(['Create', 'InstallLatestAwsSdk', 'ServiceToken', 'Update']);
      expect(props['Delete']).toBeUndefined();
    }
  });

  it('gets logical ids of its own, so updating from the AwsCustomResource version replaces the resource (its ServiceToken cannot change)', () => {
    for (const call of calls) expect(call.resource.node.path).not.toMatch(/\/Resource$/);
  });

  it('uses no managed policy and no CDK singleton provider', () => {
    for (const call of calls) expect(propertiesOf(managed.template, call.role)['ManagedPolicyArns']).toBeUndefined();
    expect(JSON.stringify(managed.template.toJSON())).not.toContain('AWS679f53fac002430cb0da5b7982bd2287');
  });
});

describe('service trust', () => {
  it('scopes every role trust to this account (aws:SourceAccount)', () => {
    const roles = Object.values(resourcesOfType(managed.template, 'AWS::IAM::Role'));
    expect(roles.length).toBeGreaterThanOrEqual(8);
    for (const role of roles) {
      const trust = (role['AssumeRolePolicyDocument'] as { Statement: Statement[] }).Statement;
      for (const statement of trust) expect(statement.Condition, JSON.stringify(statement.Principal)).toEqual(accountOnly);
    }
  });
});
