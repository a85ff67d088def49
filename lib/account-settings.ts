import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { lambdaRuntimeOf, type NotifierRuntime } from './lambda-runtime';
import { accountScopedServicePrincipal } from './service-principal';

/**
 * The handler `cr.AwsCustomResource` runs (it answers CloudFormation itself, so its function can be a
 * custom resource's service token directly), from the pinned aws-cdk-lib. Not an exported module path:
 * a test synthesizes with it, so an aws-cdk-lib upgrade that moves it fails there, not at deploy.
 */
export const AWS_CALL_HANDLER_DIR = join(
  dirname(createRequire(import.meta.url).resolve('aws-cdk-lib/package.json')),
  'custom-resource-handlers',
  'dist',
  'custom-resources',
  'aws-custom-resource-handler',
);

/** One SDK call made by CloudFormation on create and update (never on delete). */
export interface AccountSdkCallProps {
  /** The call, e.g. `{ service: 'SNS', action: 'setSMSAttributes', parameters, physicalResourceId }`. */
  readonly call: cr.AwsSdkCall;
  /** The only permissions the call gets. */
  readonly statements: readonly iam.PolicyStatement[];
  /** The function's Lambda runtime: the notifier's own, so one setting moves every function in the stack. */
  readonly runtime: NotifierRuntime;
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * KMS key of the function's log group.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
}

/**
 * A setting outside the stack's own resources (account-level SNS SMS attributes, log groups SNS owns),
 * made by one SDK call on create and update. Deleting the stack leaves the setting as it is: other
 * senders in the account may rely on it.
 *
 * Each call gets its own function, role and log group, unlike `cr.AwsCustomResource`, whose
 * singleton function pools every call's permissions in one role.
 */
export class AccountSdkCall extends Construct {
  /** The custom resource. */
  public readonly resource: CustomResource;
  /** The role of this call's function: its log group and `statements`, nothing else. */
  public readonly role: iam.Role;
  /** The function making the call. */
  public readonly fn: lambda.Function;

  constructor(scope: Construct, id: string, props: AccountSdkCallProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      encryptionKey: props.logEncryptionKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: accountScopedServicePrincipal('lambda.amazonaws.com'),
      description: `Makes one account-setting call (${props.call.service}.${props.call.action}) for the notifier`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    for (const statement of props.statements) this.role.addToPolicy(statement);
    this.fn = new lambda.Function(this, 'Function', {
      code: lambda.Code.fromAsset(AWS_CALL_HANDLER_DIR),
      handler: 'index.handler',
      runtime: lambdaRuntimeOf(props.runtime),
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.minutes(2),
      role: this.role,
      logGroup,
      description: `Account setting: ${props.call.service}.${props.call.action}`,
    });
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Runs the AwsCustomResource handler of the pinned aws-cdk-lib on the Node.js runtime the notifier functions use.',
    });
    const rendered = Stack.of(this).toJsonString(props.call);
    // Not 'Resource' (the id AwsCustomResource used): a stack updated from that version gets a new resource
    // instead of one whose ServiceToken changes, which CloudFormation refuses to update.
    this.resource = new CustomResource(this, 'Setting', {
      serviceToken: this.fn.functionArn,
      resourceType: 'Custom::AWS',
      // No Delete: the setting stays when the stack goes.
      properties: { Create: rendered, Update: rendered, InstallLatestAwsSdk: 'false' },
    });
    // CloudFormation must not call the function after its role's policy is gone (or before it exists).
    this.resource.node.addDependency(this.role);
  }
}
