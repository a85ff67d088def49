import { describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cr from 'aws-cdk-lib/custom-resources';
import { EUM_PROPS, newApp, synth } from '../cdk/helpers';
import { awsSdkToIamAction, CDK_SDK_ACTION_PATH, cdkVersion } from './cdk-sdk-call-action';
import { deployTimeSdkCalls, type SdkCall } from './deploy-time-calls';
import { functionsOf, type TemplateJson } from './template-roles';

/**
 * The IAM check reads the action of each deploy-time SDK call from CDK's own `awsSdkToIamAction`, which aws-cdk-lib
 * keeps on an internal path (cdk-sdk-call-action.ts). These tests fail, naming the installed CDK, when an upgrade
 * moves it, and hold it to CDK's public behaviour: the action `AwsCustomResourcePolicy.fromSdkCalls` grants.
 */

/** The actions CDK's public `AwsCustomResourcePolicy.fromSdkCalls` grants for `call`, read from a synthesized policy. */
function grantedByFromSdkCalls(call: SdkCall): string[] {
  const stack = new Stack(newApp(), 'FromSdkCalls');
  new cr.AwsCustomResource(stack, 'Call', {
    onCreate: { ...call, physicalResourceId: cr.PhysicalResourceId.of('call') },
    policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: cr.AwsCustomResourcePolicy.ANY_RESOURCE }),
    installLatestAwsSdk: false,
  });
  const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')) as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }[];
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement.flatMap((statement) => [statement.Action].flat()));
}

/** Every SDK call a deploy-time custom resource of the stack makes (the SMS spend limit through SNS, or End User Messaging). */
function stackSdkCalls(template: TemplateJson): SdkCall[] {
  return functionsOf(template).flatMap((id) => deployTimeSdkCalls(template, id).map((c) => c.call));
}

describe("CDK's mapping of an SDK call to its IAM action (deploy-time calls)", () => {
  it(`is found at ${CDK_SDK_ACTION_PATH} in the installed aws-cdk-lib`, () => {
    // Throws "aws-cdk-lib <version> no longer offers awsSdkToIamAction at ..." when an upgrade moves it.
    expect(awsSdkToIamAction('SNS', 'setSMSAttributes'), `aws-cdk-lib ${cdkVersion()}`).toBe('sns:SetSMSAttributes');
  });

  it.each([
    ['SNS', {}],
    ['End User Messaging', EUM_PROPS],
  ])("maps each deploy-time call of the stack texting through %s to the action AwsCustomResourcePolicy.fromSdkCalls grants", (_, props) => {
    const calls = stackSdkCalls(synth(props).template.toJSON() as TemplateJson);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect([awsSdkToIamAction(call.service, call.action)], `${call.service}.${call.action}, aws-cdk-lib ${cdkVersion()}`).toEqual(grantedByFromSdkCalls(call));
    }
  });
});
