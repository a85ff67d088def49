import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { AccountSdkCall } from './account-settings';
import type { NotifierRuntime } from './lambda-runtime';
import type { IdempotentNotifierProps } from './notifier-props';

/** The SMS spend props the notifier cannot honour, each with the value given. */
export function smsSpendViolations(
  props: Pick<IdempotentNotifierProps, 'smsMonthlySpendLimitUsd' | 'smsSpendAlarmThresholdUsd'>,
  smsEnabled: boolean,
): string[] {
  const { smsMonthlySpendLimitUsd: limitUsd, smsSpendAlarmThresholdUsd: thresholdUsd } = props;
  if (!smsEnabled) {
    return limitUsd === undefined && thresholdUsd === undefined
      ? []
      : [
          `smsMonthlySpendLimitUsd (${limitUsd}) and smsSpendAlarmThresholdUsd (${thresholdUsd}) need smsEnabled (false): ` +
            'a stack that sends no SMS does not manage the account\'s SMS spend limit',
        ];
  }
  if (limitUsd === undefined) {
    return [
      'smsMonthlySpendLimitUsd is required with smsEnabled (true): the SNS monthly SMS spend limit (USD) this stack sets ' +
        'for the account and alarms at 80% of (notifier:smsMonthlySpendLimitUsd; at most the account\'s SMS spend quota, ' +
        'US$1 until raised through a support case), or smsEnabled: false',
    ];
  }
  if (!(Number.isFinite(limitUsd) && limitUsd >= 0)) {
    return [`smsMonthlySpendLimitUsd (${limitUsd}) must be a non-negative number`];
  }
  if (thresholdUsd !== undefined && !(Number.isFinite(thresholdUsd) && thresholdUsd > 0 && thresholdUsd <= limitUsd)) {
    return [`smsSpendAlarmThresholdUsd (${thresholdUsd}) must be above 0 and at most smsMonthlySpendLimitUsd (${limitUsd})`];
  }
  return [];
}

/** What {@link manageSmsSpendLimit} sets, and how its call runs. */
export interface SmsSpendLimitProps {
  /** The account's monthly SMS spend limit, USD. */
  readonly limitUsd: number;
  /** Which service's limit: SNS's `MonthlySpendLimit`, or End User Messaging's text spend limit override. */
  readonly provider: 'sns' | 'end-user-messaging';
  /** The call's Lambda runtime (the notifier's). */
  readonly runtime: NotifierRuntime;
  /**
   * KMS key of the call's log group.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
}

/**
 * Sets the account's SNS SMS `MonthlySpendLimit` (USD) with `SmsMonthlySpendLimit` in `scope`, an SDK call
 * on create and update. On delete the account keeps its limit: lowering it silently could stop other
 * senders' SMS. The limit is checked by {@link smsSpendViolations}.
 */
export function manageSmsSpendLimit(scope: Construct, { limitUsd, runtime, logEncryptionKey, provider }: SmsSpendLimitProps): AccountSdkCall {
  if (provider === 'end-user-messaging') return manageTextMessageSpendLimit(scope, { limitUsd, runtime, logEncryptionKey });
  const resource = new AccountSdkCall(scope, 'SmsMonthlySpendLimit', {
    logEncryptionKey,
    runtime,
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

/**
 * End User Messaging SMS keeps its own monthly text spend limit (its "enforced limit", SetTextMessageSpendLimitOverride,
 * whole US dollars up to the account limit): set on create and update, kept on delete, as SNS's.
 */
function manageTextMessageSpendLimit(scope: Construct, { limitUsd, runtime, logEncryptionKey }: Omit<SmsSpendLimitProps, 'provider'>): AccountSdkCall {
  const resource = new AccountSdkCall(scope, 'TextMessageSpendLimit', {
    logEncryptionKey,
    runtime,
    call: {
      service: 'PinpointSMSVoiceV2',
      action: 'setTextMessageSpendLimitOverride',
      parameters: { MonthlyLimit: limitUsd },
      physicalResourceId: cr.PhysicalResourceId.of('sms-voice-text-message-spend-limit'),
    },
    statements: [new iam.PolicyStatement({ actions: ['sms-voice:SetTextMessageSpendLimitOverride'], resources: ['*'] })],
  });
  Validations.of(resource).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'sms-voice:SetTextMessageSpendLimitOverride is an account setting with no resource; the policy allows that one action only.',
  });
  return resource;
}
