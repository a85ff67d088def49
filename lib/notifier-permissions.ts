import { ArnFormat, Aws, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';
import { endpointArnsOf, pushEnabled, smsEnabled } from './destination-options';
import { coveringIdentities, emailAddressOf } from './email-from';
import { REVIEWED_NOT_RESOURCE_SID } from './not-resource-check';
import type { EndUserMessagingSms } from './end-user-messaging-sms';
import type { IdempotentNotifierProps } from './notifier-props';

/** The props that decide what the functions may do. */
export type PermissionProps = Pick<
  IdempotentNotifierProps,
  | 'emailFrom'
  | 'sesIdentity'
  | 'smsEnabled'
  | 'smsCountries'
  | 'smsOriginationIdentities'
  | 'smsProtectConfigurationId'
  | 'pushEnabled'
  | 'pushPlatformApplications'
  | 'encryptionKey'
  | 'queueEncryptionKey'
>;

/** The functions and the resources they are granted on. */
export interface NotifierPermissionTargets {
  /** The SQS consumers, one per lane, each with the dead-letter queue it forwards invalid events to. */
  readonly senders: readonly { readonly fn: lambda.Function; readonly deadLetterQueue: sqs.IQueue }[];
  /** The scheduled reclaimer. */
  readonly reclaimer: lambda.Function;
  /** The delivery-status function (its own grants are made by `DeliveryStatus`; here only the KMS key). */
  readonly status: lambda.Function;
  /** The send ledger. */
  readonly table: dynamodb.ITable;
  /** The SES configuration set every e-mail is sent with. */
  /** The SES configuration sets e-mail is sent with (one per lane, or the one given). */
  readonly configurationSetNames: readonly string[];
  /** End User Messaging SMS, when SMS goes through it (then no `sns:Publish` to phone numbers is granted). @default - none: SNS */
  readonly endUserMessaging?: EndUserMessagingSms;
}

/**
 * Least privilege for the sender and the reclaimer: each ledger action it uses on the table only, SES
 * sends as the From identity with this configuration set only, SNS publishes to phone numbers and
 * platform endpoints only (never topics); plus the customer-managed key, when one is given, for all three.
 */
export function grantNotifierPermissions(props: PermissionProps, targets: NotifierPermissionTargets): void {
  const { senders, reclaimer, status, table } = targets;
  const stack = Stack.of(reclaimer);
  for (const { fn: sender, deadLetterQueue } of senders) {
    // Only a sender claims (PutItem); the reclaimer re-reads a row and takes it over fenced (GetItem, UpdateItem).
    grantDelivery(sender, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], props, targets, stack);
    // A sender moves invalid events to its lane's DLQ with their reason: SendMessage there, nothing else.
    sender.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ForwardInvalidEventsToDeadLetterQueue',
        actions: ['sqs:SendMessage'],
        resources: [deadLetterQueue.queueArn],
      }),
    );
    deadLetterQueue.encryptionMasterKey?.grantEncryptDecrypt(sender);
  }
  grantDelivery(reclaimer, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], props, targets, stack);
  // The ledger's key: every function reads and writes rows.
  for (const fn of [...senders.map((s) => s.fn), reclaimer, status]) {
    props.encryptionKey?.grantEncryptDecrypt(fn);
    if (props.encryptionKey || props.queueEncryptionKey) {
      Validations.of(fn.role ?? fn).acknowledge(
        ...['kms:GenerateDataKey*', 'kms:ReEncrypt*'].map((action) => ({
          id: `AwsSolutions-IAM5[Action::${action}]`,
          reason:
            'CDK grantEncryptDecrypt on the one customer-managed key given to the notifier; KMS names these action ' +
            'families with a wildcard (GenerateDataKey, GenerateDataKeyWithoutPlaintext, ...).',
        })),
      );
    }
  }
  // The reclaimer finds stale claims through the sparse pending index.
  reclaimer.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'QueryPendingIndex',
      actions: ['dynamodb:Query'],
      resources: [`${table.tableArn}/index/${LEDGER_TABLE.pendingIndex.name}`],
    }),
  );
}

/** What both functions need to settle a message: ledger item access (`itemActions`) and the provider calls. */
function grantDelivery(
  fn: lambda.Function,
  itemActions: readonly string[],
  props: PermissionProps,
  targets: NotifierPermissionTargets,
  stack: Stack,
): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'LedgerItemAccess',
      actions: [...itemActions],
      resources: [targets.table.tableArn],
    }),
  );
  const fromAddress = emailAddressOf(props.emailFrom);
  // Without sesIdentity: the address and every parent domain, since SES sends as whichever of them is verified
  // (the synth checks that a given sesIdentity covers the address).
  const identities = props.sesIdentity ? [props.sesIdentity] : coveringIdentities(fromAddress);
  // The e-mail send rate defaults to the account's MaxSendRate, read once per cold start.
  // A policy of its own, so the acknowledgement of its `Resource: *` covers this one statement: any other
  // `Resource: *` added to the role's default policy is still a finding.
  const quota = new iam.Policy(fn, 'ReadSesSendingQuota', {
    statements: [new iam.PolicyStatement({ sid: 'ReadSesSendingQuota', actions: ['ses:GetAccount'], resources: ['*'] })],
  });
  if (fn.role) quota.attachToRole(fn.role);
  // The function reads the quota at cold start: it must not run before the policy exists.
  fn.node.addDependency(quota);
  Validations.of(quota).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'ses:GetAccount reads the account sending quota and supports no resource-level permissions; it is the only statement of this policy.',
  });
  // No tenant ARN here although every send names a `TenantName`: the Service Authorization Reference for SES v2
  // ("Actions, resources, and condition keys for Amazon Simple Email Service v2",
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsimpleemailservicev2.html) lists
  // SendEmail's resource types as configuration-set, identity (required) and template; the tenant is not one of them,
  // it is the condition key `ses:TenantName`.
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'SendEmailAsIdentityWithConfigurationSet',
      actions: ['ses:SendEmail'],
      resources: [
        ...identities.map((identity) =>
          stack.formatArn({
            service: 'ses',
            resource: 'identity',
            resourceName: identity,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ),
        ...targets.configurationSetNames.map((name) =>
          stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: name, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
        ),
      ],
      conditions: { StringEquals: { 'ses:FromAddress': fromAddress } },
    }),
  );
  if (smsEnabled(props) && targets.endUserMessaging) {
    // End User Messaging names what a text is sent with: this configuration set and the given identities only.
    fn.addToRolePolicy(targets.endUserMessaging.sendTextMessageStatement(props.smsOriginationIdentities ?? [], props.smsProtectConfigurationId));
  } else if (smsEnabled(props)) {
    // Before a bulk text to a number with no opt-out on record, SNS's own opt-out list is asked (no SMS is sent).
    // A policy of its own, so its acknowledged `Resource: *` covers this one statement.
    const optOut = new iam.Policy(fn, 'CheckSmsOptOut', {
      statements: [new iam.PolicyStatement({ sid: 'CheckSmsOptOut', actions: ['sns:CheckIfPhoneNumberIsOptedOut'], resources: ['*'] })],
    });
    if (fn.role) optOut.attachToRole(fn.role);
    Validations.of(optOut).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'sns:CheckIfPhoneNumberIsOptedOut reads the account SMS opt-out list and supports no resource-level permissions; it is the only statement of this policy.',
    });
    // SNS allows no narrower grant for SMS: a publish to a phone number has no resource ARN, so IAM can
    // only match it as a resource that is not an SNS ARN. This allows phone numbers, and no topic or endpoint;
    // which countries is the sender's check (smsCountries), as is how many (the message classes' limits).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: REVIEWED_NOT_RESOURCE_SID,
        actions: ['sns:Publish'],
        notResources: [`arn:${Aws.PARTITION}:sns:*:*:*`],
      }),
    );
  }
  if (pushEnabled(props)) {
    // destinationViolations has checked that push comes with its applications.
    const endpoints = (props.pushPlatformApplications ?? []).map(endpointArnsOf);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ sid: 'PublishToPlatformEndpoints', actions: ['sns:Publish'], resources: endpoints }),
    );
    Validations.of(fn.role ?? fn).acknowledge(
      ...endpoints.map((endpoint) => ({
        id: `AwsSolutions-IAM5[Resource::${endpoint}]`,
        reason: 'Push endpoints are created per device at run time; the grant is limited to the endpoints of the configured platform applications, never topics.',
      })),
    );
  }
}
