import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * The Lambda runtimes every function of the notifier may run on, its own and the account-setting calls'
 * alike. Node.js 24 is the default: Node.js 22 reaches its end of life on 30 April 2027, and Lambda
 * blocks creating, then updating, functions on a runtime some months after that.
 */
export const NOTIFIER_RUNTIMES = ['nodejs24.x', 'nodejs22.x'] as const;

/** One of {@link NOTIFIER_RUNTIMES}. */
export type NotifierRuntime = (typeof NOTIFIER_RUNTIMES)[number];

/** The runtime the tests, the benches and `npm start` run on (the `node` dev dependency's major). */
export const DEFAULT_NOTIFIER_RUNTIME: NotifierRuntime = 'nodejs24.x';

const RUNTIMES: Readonly<Record<NotifierRuntime, { readonly lambda: lambda.Runtime; readonly esbuildTarget: string }>> = {
  'nodejs24.x': { lambda: lambda.Runtime.NODEJS_24_X, esbuildTarget: 'node24' },
  'nodejs22.x': { lambda: lambda.Runtime.NODEJS_22_X, esbuildTarget: 'node22' },
};

/** The CDK runtime of `runtime`. */
export function lambdaRuntimeOf(runtime: NotifierRuntime): lambda.Runtime {
  return RUNTIMES[runtime].lambda;
}

/** The esbuild `target` that bundles for `runtime` (syntax the runtime's Node.js runs without lowering). */
export function esbuildTargetOf(runtime: NotifierRuntime): string {
  return RUNTIMES[runtime].esbuildTarget;
}

/** Why `value` is not a runtime the notifier runs on (empty when it is). */
export function runtimeViolations(value: unknown): string[] {
  return (NOTIFIER_RUNTIMES as readonly unknown[]).includes(value)
    ? []
    : [`lambdaRuntime (${String(value)}) must be one of ${NOTIFIER_RUNTIMES.join(', ')}`];
}
