import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IdempotentNotifierProps } from '../../lib/notifier';
import { NotifierStack } from '../../lib/notifier-stack';

/** Stand-in entry (bundling is skipped in tests; the real handlers are written by other issues). */
export const STUB_ENTRY = fileURLToPath(new URL('./fixtures/handler.ts', import.meta.url));

/** The app's cdk.json context (feature flags and notifier defaults), so tests synth what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A context that skips asset bundling (no esbuild run; keeps tests fast). */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

export const BASE_PROPS: IdempotentNotifierProps = {
  emailFrom: 'notifications@example.com',
  senderEntry: STUB_ENTRY,
  reclaimerEntry: STUB_ENTRY,
};

export interface Synthesized {
  readonly app: App;
  readonly stack: NotifierStack;
  readonly template: Template;
}

/** New app (cdk.json context, no bundling) with one NotifierStack built from `props`. */
export function synth(props: Partial<IdempotentNotifierProps> = {}, context: Record<string, unknown> = {}): Synthesized {
  const app = new App({ context: { ...cdkJsonContext(), ...NO_BUNDLING, ...context } });
  const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, ...props } });
  return { app, stack, template: Template.fromStack(stack) };
}

/** Like {@link synth} but with cdk-nag registered as the app does. */
export function appWithNag(props: Partial<IdempotentNotifierProps> = {}): { app: App; stack: NotifierStack; nag: AwsSolutionsChecks } {
  const app = new App({ context: { ...cdkJsonContext(), ...NO_BUNDLING } });
  const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, ...props } });
  const nag = new AwsSolutionsChecks(app);
  Validations.of(app).addPlugins(nag);
  return { app, stack, nag };
}
