import { Annotations, type IAspect, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * The one `NotResource` grant that was reviewed: `sns:Publish` to anything that is not an SNS ARN, which is how
 * IAM matches a publish to a phone number (it has no resource ARN). IAM5 in cdk-nag does not look at
 * `NotResource`, so without this check a broader one would never reach a gate.
 */
export const REVIEWED_NOT_RESOURCE_SID = 'PublishSmsToPhoneNumbersOnly';

/** Id of the synth error for a `NotResource` statement that is not the reviewed one. */
export const UNREVIEWED_NOT_RESOURCE_ERROR = '@idempotent-notifier/iam:unreviewed-not-resource';

interface Statement {
  readonly Sid?: unknown;
  readonly Effect?: unknown;
  readonly Action?: unknown;
  readonly NotResource?: unknown;
}

/** Whether `statement` is exactly the reviewed SMS grant (one action, the SNS-ARN exclusion, nothing more). */
function isReviewed(statement: Statement): boolean {
  const notResource = JSON.stringify(statement.NotResource);
  return (
    statement.Sid === REVIEWED_NOT_RESOURCE_SID &&
    statement.Action === 'sns:Publish' &&
    /^\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":sns:\*:\*:\*"\]\]\}$/.test(notResource)
  );
}

/**
 * Fails the synth (an error annotation) on every `Allow` statement with `NotResource` in the scope's IAM policies,
 * roles and managed policies, except the reviewed SMS grant.
 */
export class NotResourceCheck implements IAspect {
  visit(node: IConstruct): void {
    const documents =
      node instanceof iam.CfnPolicy || node instanceof iam.CfnManagedPolicy
        ? [node.policyDocument]
        : node instanceof iam.CfnRole
          ? ((node.policies ?? []) as { policyDocument?: unknown }[]).map((p) => p.policyDocument)
          : [];
    for (const document of documents) {
      const resolved = Stack.of(node).resolve(document) as { Statement?: Statement[] } | undefined;
      for (const statement of resolved?.Statement ?? []) {
        if (statement.NotResource === undefined || statement.Effect !== 'Allow' || isReviewed(statement)) continue;
        Annotations.of(node).addError(
          `${UNREVIEWED_NOT_RESOURCE_ERROR}: an Allow statement with NotResource (${JSON.stringify(statement)}) grants ` +
            'everything but the listed resources; only the reviewed SMS grant may do so (lib/not-resource-check.ts)',
        );
      }
    }
  }
}
