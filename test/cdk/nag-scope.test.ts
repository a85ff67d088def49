import * as iam from 'aws-cdk-lib/aws-iam';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { UNREVIEWED_NOT_RESOURCE_ERROR } from '../../lib/not-resource-check';
import { appWithNag, build, synth } from './helpers';

describe('cdk-nag acknowledgements are narrow', () => {
  it("flags another Resource: * on the sender's role (the GetAccount acknowledgement covers its own policy only)", () => {
    const { app, stack, nag } = appWithNag();
    stack.notifier.senderFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }));
    const findings = nag.validateScope(app).violations.map((v) => v.ruleName);
    expect(findings).toContain('AwsSolutions-IAM5[Resource::*]');
  });
});

describe('NotResource grants', () => {
  const errors = (s: ReturnType<typeof synth>['stack']) =>
    Annotations.fromStack(s).findError('*', Match.stringLikeRegexp(UNREVIEWED_NOT_RESOURCE_ERROR));

  it('accept the reviewed SMS grant (the default stack has no error)', () => {
    expect(errors(synth().stack)).toEqual([]);
  });

  it('fail the synth (an error annotation) on any other Allow with NotResource in the notifier', () => {
    const stack = build();
    stack.notifier.reclaimerFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], notResources: ['arn:aws:s3:::private/*'] }),
    );
    expect(() => Template.fromStack(stack)).toThrow(/unreviewed-not-resource: an Allow statement with NotResource \(\{"Action":"s3:GetObject"/);
  });

  it('fail the synth on the SMS statement widened to another action', () => {
    const stack = build();
    stack.notifier.senderFunction.addToRolePolicy(
      new iam.PolicyStatement({ sid: 'PublishSmsToPhoneNumbersOnly2', actions: ['sns:Publish', 'sns:Subscribe'], notResources: ['arn:aws:sns:*:*:*'] }),
    );
    expect(() => Template.fromStack(stack)).toThrow(/unreviewed-not-resource: .*"sns:Subscribe"/);
  });
});
