import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { notifierPropsFromContext } from '../../lib/context-config';
import { NotifierStack } from '../../lib/notifier-stack';
import { lifecycleSteps } from '../../scripts/aws-check/lifecycle';
import { planAwsCheck } from '../../scripts/aws-check/plan';
import { newApp } from '../cdk/helpers';

const options = { runId: 'ab12cd34', emailFrom: 'check@mail.acme-notifier.dev', nowIso: '2026-11-30T15:00:00.000Z' };
const contextOf = (args: readonly string[]) => Object.fromEntries(args.filter((_, i) => args[i - 1] === '-c').map((kv) => kv.split(/=(.*)/s).slice(0, 2)));

// Issue 53: the stack had never been deployed, and a redeploy after `cdk destroy` met what the first one retained (the
// account's one SES contact list). The first real run of the check must exercise both.
describe('npm run test:aws: a first deploy into a fresh stack name, a destroy, and a redeploy under the same name', () => {
  const plan = planAwsCheck(options);
  const steps = lifecycleSteps(plan, '/tmp/check');

  it('deploys, destroys, deploys again and destroys again, the same fresh stack name each time', () => {
    expect(steps.map((s) => s.name)).toEqual(['first-deploy', 'destroy', 'redeploy', 'final-destroy']);
    expect(steps.map((s) => s.args.slice(0, 3))).toEqual([
      ['cdk', 'deploy', plan.stackName],
      ['cdk', 'destroy', plan.stackName],
      ['cdk', 'deploy', plan.stackName],
      ['cdk', 'destroy', plan.stackName],
    ]);
    expect(plan.stackName).toMatch(/^NotifierCheck-ab12cd34$/);
  });

  it('exercises the first deploy (the sends and probes) and checks that the redeploy answers with its outputs', () => {
    expect(steps.map((s) => s.exercise)).toEqual(['sends-and-probes', 'none', 'outputs', 'none']);
    expect(steps[0]?.outputsFile).not.toEqual(steps[2]?.outputsFile);
  });

  it('creates the contact list on the first deploy and adopts the kept one on the redeploy (the documented redeploy path)', () => {
    expect(contextOf(steps[0]!.args)['notifier:createContactList']).toBeUndefined();
    expect(contextOf(steps[2]!.args)).toMatchObject({ 'notifier:createContactList': 'false', 'notifier:contactListName': 'notifier' });
    expect(contextOf(steps[3]!.args)).toEqual(contextOf(steps[2]!.args));
    expect(plan.contactList).toEqual({ name: 'notifier', deleteAfterRun: true });
  });

  it("never creates or deletes an account's existing list: both deploys adopt it", () => {
    const shared = planAwsCheck({ ...options, existingContactList: 'shop' });
    const [first, , redeploy] = lifecycleSteps(shared, '/tmp/check');
    for (const step of [first!, redeploy!]) expect(contextOf(step.args)).toMatchObject({ 'notifier:createContactList': 'false', 'notifier:contactListName': 'shop' });
    expect(shared.contactList).toEqual({ name: 'shop', deleteAfterRun: false });
  });

  it('synthesizes the redeploy: no contact list resource, the kept one named to the senders', () => {
    const context = contextOf(steps[2]!.args);
    expect(notifierPropsFromContext(new Stack(newApp(context), 'Props')).contactList).toMatchObject({ create: false, contactListName: 'notifier' });
    Template.fromStack(new NotifierStack(newApp(context), plan.stackName)).resourceCountIs('AWS::SES::ContactList', 0);
    // A whole stack's synth: the first in a file loads aws-cdk-lib.
  }, 90_000);
});
