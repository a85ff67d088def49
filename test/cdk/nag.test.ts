import { Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import type { IdempotentNotifierProps } from '../../lib/notifier';
import { BASE_PROPS, EUM_PROPS, appWithNag } from './helpers';
import { IdempotentNotifier } from '../../lib/notifier';
import * as kms from 'aws-cdk-lib/aws-kms';

/** Every acknowledgement recorded in the tree: rule id -> reason. */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const node of root.node.findAll()) {
    for (const entry of node.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.set(`${node.node.path} ${id}`, reason);
      }
    }
  }
  return found;
}

const variants: Record<string, Partial<IdempotentNotifierProps>> = {
  defaults: {},
  'SMS spend limit managed': { smsMonthlySpendLimitUsd: 20 },
  'push to two platform applications': {
    pushPlatformApplications: ['arn:aws:sns:us-east-1:123456789012:app/APNS/app', 'arn:aws:sns:us-east-1:123456789012:app/GCM/app'],
  },
  'SMS and push disabled': { smsEnabled: false, smsMonthlySpendLimitUsd: undefined, pushEnabled: false },
  'SMS delivery-status logs consumed': { smsDeliveryStatusLogs: true },
  'SMS delivery-status logging and spend limit managed': {
    smsDeliveryStatusLogs: true,
    smsDeliveryStatusSuccessSamplingPercent: 100,
    smsMonthlySpendLimitUsd: 20,
  },
  'existing configuration set': { sesConfigurationSetName: 'prod-set' },
  'SMS through End User Messaging': EUM_PROPS,
  'SMS through End User Messaging with a protect configuration and spend limit': {
    ...EUM_PROPS,
    smsProtectConfigurationId: 'protect-0123456789abcdef',
    smsMonthlySpendLimitUsd: 20,
  },
  'SES event destination managed elsewhere': { sesEventDestination: false },
  'producers wired': {
    producerTopicArns: ['arn:aws:sns:eu-west-1:111122223333:orders'],
    producerEventRules: [{ eventPattern: { source: ['shop.orders'] } }],
  },
};

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged finding with a customer-managed key', () => {
    const { app, stack, nag } = appWithNag({ smsDeliveryStatusLogs: true });
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new IdempotentNotifier(stack, 'Encrypted', { ...BASE_PROPS, encryptionKey: key, smsDeliveryStatusLogs: true });
    const report = nag.validateScope(app);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('reports no unacknowledged finding with End User Messaging and a customer-managed key', () => {
    const { app, stack, nag } = appWithNag(EUM_PROPS);
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new IdempotentNotifier(stack, 'Encrypted', { ...BASE_PROPS, ...EUM_PROPS, encryptionKey: key });
    const report = nag.validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => JSON.stringify(r)).join(' ')}`)).toEqual([]);
  });

  it.each(Object.entries(variants))('reports no unacknowledged finding (%s)', (_name, props) => {
    const { app, nag } = appWithNag(props);
    const report = nag.validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => JSON.stringify(r)).join(' ')}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('lets the app synthesize with the plugin registered, as bin/app.ts does', () => {
    const { app } = appWithNag({ smsMonthlySpendLimitUsd: 20, smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: 100 });
    expect(() => app.synth()).not.toThrow();
  });

  it('fails synthesis on an unacknowledged finding', () => {
    const { app, stack } = appWithNag();
    new sqs.Queue(stack, 'UnsafeQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
  });

  it('gives every acknowledged finding a written reason', () => {
    const { app, nag } = appWithNag({
      smsMonthlySpendLimitUsd: 20,
      smsDeliveryStatusLogs: true,
      smsDeliveryStatusSuccessSamplingPercent: 100,
    });
    nag.validateScope(app);
    const acks = acknowledgements(app);
    expect(acks.size).toBeGreaterThan(0);
    for (const [rule, reason] of acks) {
      expect(rule).toMatch(/AwsSolutions-/);
      expect(reason.length, rule).toBeGreaterThan(40);
    }
  });
});
