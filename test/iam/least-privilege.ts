import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { Deployment, IamRequest } from './iam-requests';
import type { FunctionGrants, Statement } from './template-roles';

/**
 * Holds a function's recorded requests against its role's statements with an IAM policy simulator
 * (@cloud-copilot/iam-simulate, a test-only devDependency: docs/iam-check.md says why its AGPL licence is fine
 * here), both ways: each request must be allowed, and each grant (each action of each statement, on each of its
 * resources) must allow at least one request.
 */

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : [value].flat());

async function allowed(statements: readonly Statement[], request: IamRequest, at: Deployment): Promise<boolean> {
  const simulation: Simulation = {
    identityPolicies: [{ name: 'role', policy: { Version: '2012-10-17', Statement: statements } }],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    request: {
      action: request.action,
      principal: `arn:${at.partition}:iam::${at.account}:role/${request.fn.replace(/[^A-Za-z0-9+=,.@_-]/g, '-')}`,
      resource: { resource: request.resource, accountId: at.account },
      contextVariables: request.context,
    },
  } as Simulation;
  const result = await runSimulation(simulation, {});
  if (result.resultType !== 'error') return result.overallResult === 'Allowed';
  // The Service Authorization Reference lists only `topic` for sns:Publish, yet SNS authorizes a publish to a
  // platform endpoint against the endpoint's ARN: only a resource the reference does not list runs unvalidated.
  if (result.errors.message === 'no.resource.types') return runUnsafeSimulation(simulation, {}) === 'Allowed';
  throw new Error(`the simulator refused ${request.action} on ${request.resource}: ${JSON.stringify(result.errors)}`);
}

const keyOf = (r: IamRequest): string => JSON.stringify([r.action, r.resource, r.context]);

/** Each distinct request the role does not allow, as `function: action on resource (call)`. */
export async function deniedRequests(name: string, grants: FunctionGrants, requests: readonly IamRequest[], at: Deployment): Promise<string[]> {
  const statements = grants.statements.map((s) => s.statement);
  const denied = new Set<string>();
  const seen = new Set<string>();
  for (const request of requests) {
    if (seen.has(keyOf(request))) continue;
    seen.add(keyOf(request));
    if (!(await allowed(statements, request, at))) denied.add(`${name} (${grants.logicalId}): ${request.action} on ${request.resource} is not allowed (${request.call})`);
  }
  return [...denied];
}

/** One grant: an action of an Allow statement on one of its resources (a NotResource is one grant). */
export interface Grant {
  /** The same in every synth of the stack: function, policy, Sid, action and the resource with logical ids. */
  readonly key: string;
  readonly message: string;
}

/**
 * Each grant of the role, and those a request uses. `keyGrants` are the same statements resolved with logical
 * ids instead of a run's names, so the grants of two runs' stacks compare.
 */
export async function grantUse(
  name: string,
  grants: FunctionGrants,
  keyGrants: FunctionGrants,
  requests: readonly IamRequest[],
  at: Deployment,
): Promise<{ readonly all: Grant[]; readonly used: Set<string> }> {
  const all: Grant[] = [];
  const used = new Set<string>();
  const distinct = [...new Map(requests.map((r) => [keyOf(r), r])).values()];
  for (const [index, { policy, statement }] of grants.statements.entries()) {
    if (statement.Effect !== 'Allow') continue;
    const keyStatement = keyGrants.statements[index]?.statement ?? statement;
    const where = `${policy}/${statement.Sid ?? '-'}`;
    if (statement.NotAction) {
      all.push({ key: `${name}|${where}|NotAction`, message: `${name} (${grants.logicalId}): NotAction in ${where} grants more than any call needs` });
      continue;
    }
    const resources = statement.NotResource ? [undefined] : list(statement.Resource);
    const keyResources = statement.NotResource ? [undefined] : list(keyStatement.Resource);
    for (const action of list(statement.Action)) {
      for (const [r, resource] of resources.entries()) {
        const key = `${name}|${where.replace(/[0-9A-F]{8}(?=\/|$)/, '')}|${action}|${keyResources[r] ?? JSON.stringify(keyStatement.NotResource)}`;
        all.push({ key, message: `${name} (${grants.logicalId}): ${action} on ${resource ?? `NotResource ${JSON.stringify(statement.NotResource)}`} is granted but no recorded call uses it (${where})` });
        const only: Statement = { ...statement, Action: action, ...(resource === undefined ? {} : { Resource: resource }) };
        for (const request of distinct) {
          if (actionMatches(action, request.action) && (await allowed([only], request, at))) {
            used.add(key);
            break;
          }
        }
      }
    }
  }
  return { all, used };
}

function actionMatches(pattern: string, action: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return regex.test(action);
}
