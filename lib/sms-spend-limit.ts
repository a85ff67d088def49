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

/** Each provider's account-wide monthly SMS spend limit: the call that sets it and the one permission it needs. */
const SPEND_LIMIT_CALLS = {
  sns: {
    id: 'SmsMonthlySpendLimit',
    call: (limitUsd: number) => ({
      service: 'SNS',
      action: 'setSMSAttributes',
      parameters: { attributes: { MonthlySpendLimit: String(limitUsd) } },
      physicalResourceId: cr.PhysicalResourceId.of('sns-sms-monthly-spend-limit'),
    }),
    permission: 'sns:SetSMSAttributes',
    reason: 'sns:SetSMSAttributes supports no resource-level permissions; the policy allows that one action only.',
  },
  // End User Messaging keeps its own text spend limit (its "enforced limit", whole US dollars up to the account limit).
  'end-user-messaging': {
    id: 'TextMessageSpendLimit',
    call: (limitUsd: number) => ({
      service: 'PinpointSMSVoiceV2',
      action: 'setTextMessageSpendLimitOverride',
      parameters: { MonthlyLimit: limitUsd },
      physicalResourceId: cr.PhysicalResourceId.of('sms-voice-text-message-spend-limit'),
    }),
    permission: 'sms-voice:SetTextMessageSpendLimitOverride',
    reason: 'sms-voice:SetTextMessageSpendLimitOverride is an account setting with no resource; the policy allows that one action only.',
  },
} as const;

/**
 * Sets the account's monthly SMS spend limit (USD) of the provider in `scope`, an SDK call on create and update:
 * SNS's `MonthlySpendLimit` (`SmsMonthlySpendLimit`), or End User Messaging's `SetTextMessageSpendLimitOverride`
 * (`TextMessageSpendLimit`). On delete the account keeps its limit: lowering it silently could stop other
 * senders' SMS. The limit is checked by {@link smsSpendViolations}.
 */
export function manageSmsSpendLimit(scope: Construct, { limitUsd, runtime, logEncryptionKey, provider }: SmsSpendLimitProps): AccountSdkCall {
  const spec = SPEND_LIMIT_CALLS[provider];
  const resource = new AccountSdkCall(scope, spec.id, {
    logEncryptionKey,
    runtime,
    call: spec.call(limitUsd),
    statements: [new iam.PolicyStatement({ actions: [spec.permission], resources: ['*'] })],
  });
  Validations.of(resource).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: spec.reason });
  return resource;
}
