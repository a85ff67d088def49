import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { AccountSdkCall } from './account-settings';
import type { IdempotentNotifierProps } from './notifier-props';

/** The SMS spend props the notifier cannot honour, each with the value given. */
export function smsSpendViolations(props: Pick<IdempotentNotifierProps, 'smsMonthlySpendLimitUsd'>): string[] {
  const limitUsd = props.smsMonthlySpendLimitUsd;
  if (limitUsd !== undefined && !(Number.isFinite(limitUsd) && limitUsd >= 0)) {
    return [`smsMonthlySpendLimitUsd (${limitUsd}) must be a non-negative number`];
  }
  return [];
}

/**
 * Sets the account's SNS SMS `MonthlySpendLimit` (USD) with `SmsMonthlySpendLimit` in `scope`, an SDK call
 * on create and update. On delete the account keeps its limit: lowering it silently could stop other
 * senders' SMS. The limit is checked by {@link smsSpendViolations}.
 */
export function manageSmsSpendLimit(scope: Construct, limitUsd: number, logEncryptionKey?: kms.IKey): AccountSdkCall {
  const resource = new AccountSdkCall(scope, 'SmsMonthlySpendLimit', {
    logEncryptionKey,
    call: {
      service: 'SNS',
      action: 'setSMSAttributes',
      parameters: { attributes: { MonthlySpendLimit: String(limitUsd) } },
      physicalResourceId: cr.PhysicalResourceId.of('sns-sms-monthly-spend-limit'),
    },
    statements: [new iam.PolicyStatement({ actions: ['sns:SetSMSAttributes'], resources: ['*'] })],
  });
  Validations.of(resource).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'sns:SetSMSAttributes supports no resource-level permissions; the policy allows that one action only.',
  });
  return resource;
}
