import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Where aws-cdk-lib keeps `awsSdkToIamAction`, its mapping of an SDK call (`SNS`, `setSMSAttributes`) to the IAM
 * action `AwsCustomResourcePolicy.fromSdkCalls` grants for it (`sns:SetSMSAttributes`). The public
 * `aws-cdk-lib/custom-resources` does not export it; this subpath is listed in aws-cdk-lib's package.json `exports`
 * (so it resolves through the exports map, no file path), but the name says internal and no CDK release promises
 * to keep it. cdk-sdk-call-action.test.ts fails naming the CDK version when it moves, and ties the function to
 * what `fromSdkCalls` grants.
 */
export const CDK_SDK_ACTION_PATH = 'aws-cdk-lib/custom-resources/lib/helpers-internal';

/** The installed aws-cdk-lib's version (its package.json, which its exports map lists). */
export function cdkVersion(): string {
  return (require('aws-cdk-lib/package.json') as { version: string }).version;
}

type SdkCallToAction = (service: string, action: string) => string;
let loaded: SdkCallToAction | undefined;

/**
 * The IAM action CDK grants for an SDK call (`awsSdkToIamAction` from {@link CDK_SDK_ACTION_PATH}). Throws an
 * error naming the installed aws-cdk-lib when that path or its export is gone.
 */
export function awsSdkToIamAction(service: string, action: string): string {
  loaded ??= loadFromCdk();
  return loaded(service, action);
}

function loadFromCdk(): SdkCallToAction {
  let helpers: unknown;
  try {
    helpers = require(CDK_SDK_ACTION_PATH);
  } catch (error) {
    throw new Error(`${moved()}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fn = (helpers as { awsSdkToIamAction?: unknown } | undefined)?.awsSdkToIamAction;
  if (typeof fn !== 'function') throw new Error(`${moved()}: the module has no function awsSdkToIamAction`);
  return (service, action) => {
    const mapped: unknown = fn(service, action);
    if (typeof mapped !== 'string') throw new Error(`awsSdkToIamAction(${service}, ${action}) of aws-cdk-lib ${cdkVersion()} returned ${String(mapped)}, not an action`);
    return mapped;
  };
}

const moved = () =>
  `aws-cdk-lib ${cdkVersion()} no longer offers awsSdkToIamAction at ${CDK_SDK_ACTION_PATH} (an internal path): find where this ` +
  'version keeps it, or read the action from the policy AwsCustomResourcePolicy.fromSdkCalls synthesizes (cdk-sdk-call-action.test.ts does)';
