import { join } from 'node:path';
import { type AwsCheckPlan, deployArgs, destroyArgs } from './plan';

/** What the runner does with a stack once a step has deployed it. */
export type StepExercise =
  /** The sends, the planted claim and the probes, polled until each verdict is in (the first deploy). */
  | 'sends-and-probes'
  /** Only read its outputs: the stack answers (the redeploy). */
  | 'outputs'
  | 'none';

/** One CloudFormation step of a check run. */
export interface LifecycleStep {
  readonly name: 'first-deploy' | 'destroy' | 'redeploy' | 'final-destroy';
  /** The `npx` arguments. */
  readonly args: readonly string[];
  readonly exercise: StepExercise;
  /** Where a deploy writes its outputs (undefined for a destroy). */
  readonly outputsFile?: string;
  /** What it proves on a real account. */
  readonly proves: string;
}

/**
 * The run's steps, in order: a deploy into a fresh stack name (the run's own), its destroy, a deploy again under the
 * same name (what a team does after `cdk destroy`), and its destroy. The redeploy meets what the first deploy's
 * stack retains: the account's one SES contact list (kept on delete), which it adopts with `createContactList` false,
 * the path docs/deployment.md documents. After each destroy the runner deletes what that deploy retained on purpose.
 *
 * @param outputsDir a folder for the two deploys' outputs files.
 */
export function lifecycleSteps(plan: AwsCheckPlan, outputsDir: string): LifecycleStep[] {
  const redeploy = { ...plan.context, 'notifier:createContactList': 'false', 'notifier:contactListName': plan.contactList.name };
  const first = join(outputsDir, 'first-deploy-outputs.json');
  const again = join(outputsDir, 'redeploy-outputs.json');
  return [
    {
      name: 'first-deploy',
      args: deployArgs(plan, first),
      exercise: 'sends-and-probes',
      outputsFile: first,
      proves: 'a first deploy into a stack name the account has never seen succeeds (no reserved concurrency, the contact list created)',
    },
    { name: 'destroy', args: destroyArgs(plan), exercise: 'none', proves: 'the stack deletes, keeping what it retains on purpose' },
    {
      name: 'redeploy',
      args: deployArgs(plan, again, redeploy),
      exercise: 'outputs',
      outputsFile: again,
      proves: 'a deploy under the same name after `cdk destroy` succeeds, adopting the kept contact list',
    },
    { name: 'final-destroy', args: destroyArgs(plan, redeploy), exercise: 'none', proves: 'the redeployed stack deletes too' },
  ];
}
