import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';

/** One SDK call made by CloudFormation on create and update (never on delete). */
export interface AccountSdkCallOptions {
  /** The call, e.g. `{ service: 'SNS', action: 'setSMSAttributes', parameters, physicalResourceId }`. */
  readonly call: cr.AwsSdkCall;
  /** The only permissions the call gets. */
  readonly statements: readonly iam.PolicyStatement[];
}

const LOG_GROUP_ID = 'NotifierAccountSettingsLogs';

/**
 * An `AwsCustomResource` for a setting outside the stack's own resources (account-level SNS SMS
 * attributes, log groups SNS owns). Deleting the stack leaves the setting as it is: other senders
 * in the account may rely on it. Every such resource shares CDK's singleton provider function,
 * which logs to one log group per stack.
 */
export function accountSdkCall(scope: Construct, id: string, options: AccountSdkCallOptions): cr.AwsCustomResource {
  const stack = Stack.of(scope);
  // The singleton provider takes the log group of whichever resource creates it: give all the same one.
  const logGroup =
    (stack.node.tryFindChild(LOG_GROUP_ID) as logs.LogGroup | undefined) ??
    new logs.LogGroup(stack, LOG_GROUP_ID, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  const resource = new cr.AwsCustomResource(scope, id, {
    onCreate: options.call,
    onUpdate: options.call,
    policy: cr.AwsCustomResourcePolicy.fromStatements([...options.statements]),
    installLatestAwsSdk: false,
    logGroup,
  });
  const provider = stack.node.tryFindChild(`AWS${cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
  if (provider) {
    Validations.of(provider).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The CDK-provided custom-resource function (singleton) only writes its own logs with this managed policy.',
    });
  }
  return resource;
}
