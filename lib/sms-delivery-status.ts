import { ArnFormat, Aws, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { AccountSdkCall } from './account-settings';
import type { NotifierRuntime } from './lambda-runtime';
import { maskingPolicyDocument } from './notifier-function';
import { accountScopedServicePrincipal } from './service-principal';

/** Names of the log groups SNS writes SMS delivery status to (successes, failures) in this account and region. */
export function smsDeliveryLogGroupNames(): { readonly success: string; readonly failure: string } {
  const success = `sns/${Aws.REGION}/${Aws.ACCOUNT_ID}/DirectPublishToPhoneNumber`;
  return { success, failure: `${success}/Failure` };
}

/** The log group names as cdk-nag prints them (pseudo parameters in angle brackets). */
const NAG_GROUP_NAMES = {
  Success: 'sns/<AWS::Region>/<AWS::AccountId>/DirectPublishToPhoneNumber',
  Failure: 'sns/<AWS::Region>/<AWS::AccountId>/DirectPublishToPhoneNumber/Failure',
} as const;

/** Why `percent` cannot be the SMS delivery-status success sampling rate (empty when it can). */
export function samplingPercentViolations(percent: number): string[] {
  return Number.isInteger(percent) && percent >= 0 && percent <= 100
    ? []
    : [`smsDeliveryStatusSuccessSamplingPercent (${percent}) must be an integer from 0 to 100`];
}

/** What {@link SmsDeliveryStatusLogs} wires. */
export interface SmsDeliveryStatusLogsProps {
  /** The function the log lines are sent to. */
  readonly destination: lambda.IFunction;
  /**
   * Turn on the account's SMS delivery-status logging (SNS `SetSMSAttributes`:
   * `DeliveryStatusIAMRole`, `DeliveryStatusSuccessSamplingRate`) with this success sampling rate.
   * @default - the account setting is not managed by this stack
   */
  readonly successSamplingPercent?: number;
  /** Retention of the two SNS log groups (and of the custom resources' own). */
  readonly retention: logs.RetentionDays;
  /** The custom resources' Lambda runtime (the notifier's). */
  readonly runtime: NotifierRuntime;
  /**
   * KMS key of the custom resources' log groups.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
}

/**
 * Subscription filters from the account's SNS SMS delivery-status log groups to a function.
 *
 * SNS creates those log groups at its first delivery-status write (the `/Failure` one at the first
 * failure), so they may not exist at deploy time, and when they do exist they belong to the
 * account, not to this stack. A custom resource therefore creates each one only if it is missing
 * and never deletes it; the filters are attached to them by name.
 */
export class SmsDeliveryStatusLogs extends Construct {
  /** The subscription filters (success, failure). */
  public readonly filters: readonly logs.SubscriptionFilter[];
  /** The role SNS writes the logs with, when the account setting is managed. */
  public readonly loggingRole?: iam.Role;

  constructor(scope: Construct, id: string, props: SmsDeliveryStatusLogsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const names = smsDeliveryLogGroupNames();
    const groupArn = (name: string): string =>
      stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME });

    this.filters = (
      [
        ['Success', names.success],
        ['Failure', names.failure],
      ] as const
    ).map(([which, name]) => {
      /** One CloudWatch Logs call on this one log group, with that action on it only. */
      const onGroup = (id: string, action: string, parameters: Record<string, unknown>, ignoreErrorCodesMatching?: string) => {
        const call = new AccountSdkCall(this, `${id}${which}LogGroup`, {
          logEncryptionKey: props.logEncryptionKey,
          logRetention: props.retention,
          runtime: props.runtime,
          call: {
            service: 'CloudWatchLogs',
            action,
            parameters,
            physicalResourceId: cr.PhysicalResourceId.of(`sns-sms-delivery-status-${which.toLowerCase()}-log-group${id === 'Ensure' ? '' : `-${id.toLowerCase()}`}`),
            ignoreErrorCodesMatching,
          },
          // Both ARN forms: CloudWatch Logs has been seen authorizing log-group actions against either.
          statements: [
            new iam.PolicyStatement({ actions: [`logs:${action[0]!.toUpperCase()}${action.slice(1)}`], resources: [groupArn(name), `${groupArn(name)}:*`] }),
          ],
        });
        Validations.of(call).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${NAG_GROUP_NAMES[which]}:*]`,
          reason: `The ":*" form of this one log group ARN (as CloudFormation and CDK give log group ARNs); the only action is logs:${action}.`,
        });
        return call;
      };
      const ensured = onGroup('Ensure', 'createLogGroup', { logGroupName: name }, 'ResourceAlreadyExistsException');
      // SNS writes phone numbers into these groups: keep them no longer than the functions' logs, and masked.
      onGroup('Retain', 'putRetentionPolicy', { logGroupName: name, retentionInDays: props.retention }).node.addDependency(ensured);
      onGroup('Mask', 'putDataProtectionPolicy', {
        logGroupIdentifier: name,
        policyDocument: stack.toJsonString(maskingPolicyDocument()),
      }).node.addDependency(ensured);
      const filter = new logs.SubscriptionFilter(this, `${which}Filter`, {
        logGroup: logs.LogGroup.fromLogGroupName(this, `${which}LogGroup`, name),
        destination: new LambdaDestination(props.destination),
        filterPattern: logs.FilterPattern.allEvents(),
      });
      filter.node.addDependency(ensured);
      return filter;
    });

    if (props.successSamplingPercent !== undefined) {
      this.loggingRole = this.manageAccountLogging(props.successSamplingPercent, names.success, props);
    }
  }

  private manageAccountLogging(percent: number, successName: string, { logEncryptionKey, runtime }: SmsDeliveryStatusLogsProps): iam.Role {
    const violations = samplingPercentViolations(percent);
    if (violations.length > 0) throw new Error(`IdempotentNotifier: ${violations.join('; ')}`);
    const stack = Stack.of(this);
    // Both groups (and their streams) share the prefix `${successName}`: SNS writes nothing else with this role.
    const logsPrefix = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `${successName}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const role = new iam.Role(this, 'LoggingRole', {
      assumedBy: accountScopedServicePrincipal('sns.amazonaws.com'),
      description: 'SNS writes SMS delivery-status logs with this role (account setting DeliveryStatusIAMRole)',
      inlinePolicies: {
        WriteSmsDeliveryStatusLogs: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              actions: [
                'logs:CreateLogGroup',
                'logs:CreateLogStream',
                'logs:PutLogEvents',
                'logs:PutMetricFilter',
                'logs:PutRetentionPolicy',
              ],
              resources: [logsPrefix],
            }),
          ],
        }),
      },
    });
    // The account setting outlives the stack (see AccountSdkCall), so must the role it names.
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/<AWS::AccountId>/DirectPublishToPhoneNumber*]`,
      reason:
        'SNS creates the delivery-status log streams at run time; the grant covers only the two SMS delivery-status ' +
        'log groups of this account and region (DirectPublishToPhoneNumber and its /Failure sibling) and their streams.',
    });

    const setting = new AccountSdkCall(this, 'AccountLogging', {
      logEncryptionKey,
      runtime,
      call: {
        service: 'SNS',
        action: 'setSMSAttributes',
        parameters: {
          attributes: { DeliveryStatusIAMRole: role.roleArn, DeliveryStatusSuccessSamplingRate: String(percent) },
        },
        physicalResourceId: cr.PhysicalResourceId.of('sns-sms-delivery-status-logging'),
      },
      statements: [
        new iam.PolicyStatement({ actions: ['sns:SetSMSAttributes'], resources: ['*'] }),
        new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [role.roleArn] }),
      ],
    });
    Validations.of(setting).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'sns:SetSMSAttributes supports no resource-level permissions; iam:PassRole is limited to the logging role.',
    });
    return role;
  }
}
