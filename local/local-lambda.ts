import type { LocalAws } from './aws/local-aws';
import { applyEnvironment } from './aws/process-environment';

/** Variables that could send an SDK client elsewhere than the variables a local run sets. */
export const UNSET_FOR_LOCAL_RUNS = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', 'AWS_ENDPOINT_URL'];

/**
 * Sets, for the duration of a local run, the SDK's standard variables that point every client at the
 * local services (endpoints, region, dummy credentials); `overrides` win (a fault proxy's endpoint, say).
 * The senders' own variables are not the process's: each lane's sender loads its own (local/local-lanes.ts).
 * @returns a function that restores the environment as it was.
 */
export function applyLocalSdkEnvironment(aws: LocalAws, overrides: Readonly<Record<string, string>> = {}): () => void {
  return applyEnvironment({ ...aws.sdkEnvironment, ...overrides }, UNSET_FOR_LOCAL_RUNS);
}
