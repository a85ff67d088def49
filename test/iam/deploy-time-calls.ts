import { awsSdkToIamAction } from './cdk-sdk-call-action';
import type { IamRequest } from './iam-requests';
import type { TemplateJson } from './template-roles';

/**
 * The calls a deploy-time custom resource makes with its function's role, read from the synthesized template: no
 * local run deploys the stack, so none records them. Each `Custom::*` resource whose service token is the
 * function and whose `Create`/`Update` hold an SDK call (`{ service, action, parameters }`, what
 * `AccountSdkCall` in lib/account-settings.ts and CDK's `AwsCustomResource` render) asks the function to make that
 * call; its IAM action is CDK's own mapping from the SDK's metadata (`awsSdkToIamAction`, what
 * `AwsCustomResourcePolicy.fromSdkCalls` grants), not the permission lib/ wrote beside the call.
 */

/**
 * Actions that name no resource, so IAM authorizes them on `*` (each page of the Service Authorization Reference
 * lists no resource type for them). A call of any other action fails the check until its resource is mapped here.
 */
const ACCOUNT_ACTIONS: Readonly<Record<string, string>> = {
  'sns:SetSMSAttributes': 'https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsns.html',
  'sms-voice:SetTextMessageSpendLimitOverride':
    'https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsendusermessagingsmsandvoicev2.html',
};

/** An SDK call as a custom resource renders it: `{ service: 'SNS', action: 'setSMSAttributes' }`. */
export interface SdkCall {
  readonly service: string;
  readonly action: string;
}

const PHASES = ['Create', 'Update', 'Delete'] as const;

const serviceTokenOf = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  return Array.isArray(getAtt) && getAtt[1] === 'Arn' ? String(getAtt[0]) : undefined;
};

function sdkCallOf(rendered: unknown, where: string): SdkCall | undefined {
  if (rendered === undefined) return undefined;
  if (typeof rendered !== 'string') throw new Error(`${where} is not a rendered SDK call (a token?): ${JSON.stringify(rendered)}`);
  const call = JSON.parse(rendered) as Partial<SdkCall>;
  if (typeof call.service !== 'string' || typeof call.action !== 'string') throw new Error(`${where} names no service and action: ${rendered}`);
  return { service: call.service, action: call.action };
}

/** One SDK call a custom resource asks its function to make, in one phase. */
export interface DeployTimeSdkCall {
  /** The custom resource's logical id. */
  readonly id: string;
  readonly phase: (typeof PHASES)[number];
  readonly call: SdkCall;
}

/** Each SDK call the template's custom resources whose service token is the function `functionId` ask it to make. */
export function deployTimeSdkCalls(template: TemplateJson, functionId: string): DeployTimeSdkCall[] {
  const calls: DeployTimeSdkCall[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (!resource.Type.startsWith('Custom::') || serviceTokenOf(resource.Properties?.['ServiceToken']) !== functionId) continue;
    for (const phase of PHASES) {
      const call = sdkCallOf(resource.Properties?.[phase], `${id}.${phase}`);
      if (call) calls.push({ id, phase, call });
    }
  }
  return calls;
}

/** Each IAM request `fn` (the function `functionId`) is asked to make by the template's custom resources. */
export function deployTimeRequests(template: TemplateJson, functionId: string, fn: string): IamRequest[] {
  return deployTimeSdkCalls(template, functionId).map(({ id, phase, call }) => {
    const action = awsSdkToIamAction(call.service, call.action);
    if (!ACCOUNT_ACTIONS[action]) {
      throw new Error(`${id} calls ${call.service}.${call.action} (${action}), whose resource this check does not know: map it in test/iam/deploy-time-calls.ts`);
    }
    return { fn, action, resource: '*', context: {}, call: `custom resource ${id}, ${phase}: ${call.service}.${call.action}` };
  });
}
