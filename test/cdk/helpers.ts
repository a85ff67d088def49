import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { IdempotentNotifierProps } from '../../lib/notifier';
import { NotifierStack } from '../../lib/notifier-stack';
import { testOutdir } from '../support/cdk-outdir';

/** Stand-in entry (bundling is skipped in tests, and NodejsFunction only needs the file to exist). */
export const STUB_ENTRY = fileURLToPath(new URL('./fixtures/handler.ts', import.meta.url));

/** The app's cdk.json context (feature flags and notifier defaults), so tests synth what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** Skips asset bundling (no esbuild run): the normal way to keep assertion tests fast. */
export const NO_BUNDLING: Record<string, unknown> = { 'aws:cdk:bundling-stacks': [] };

/** A From address on a non-reserved domain (synth refuses example.com and the like). */
export const TEST_EMAIL_FROM = 'notifications@mail.acme-notifier.dev';
/** Its domain. */
export const TEST_EMAIL_DOMAIN = 'mail.acme-notifier.dev';

/** The SMS spend limit the test stacks manage (required with SMS enabled, as BASE_PROPS has it). */
export const TEST_SMS_SPEND_LIMIT_USD = 1;

/** Minimal props; handler entries point at the stub. An alarm subscriber keeps synth free of the no-subscriber warning. */
/** The platform application whose endpoints the test stacks may push to. */
export const TEST_PUSH_APPLICATION_ARN = 'arn:aws:sns:us-east-1:123456789012:app/GCM/shop-app';

/** SMS through End User Messaging, from one pool, parts at most 10 cents. */
export const TEST_EUM_POOL_ARN = 'arn:aws:sms-voice:us-east-1:123456789012:pool/pool-0123456789abcdef';
export const EUM_PROPS: Partial<IdempotentNotifierProps> = {
  smsProvider: 'end-user-messaging',
  smsOriginationIdentities: [TEST_EUM_POOL_ARN],
  smsMaxPriceUsd: '0.10',
};

export const BASE_PROPS: IdempotentNotifierProps = {
  emailFrom: TEST_EMAIL_FROM,
  smsMonthlySpendLimitUsd: TEST_SMS_SPEND_LIMIT_USD,
  alarms: { emails: [`oncall@${TEST_EMAIL_DOMAIN}`] },
  senderEntry: STUB_ENTRY,
  reclaimerEntry: STUB_ENTRY,
  statusEntry: STUB_ENTRY,
  outcomesEntry: STUB_ENTRY,
  // SMS and push need their destinations: as a shop that texts and pushes would deploy.
  smsCountries: ['US', 'GB'],
  pushPlatformApplications: [TEST_PUSH_APPLICATION_ARN],
};

/**
 * A new app with the cdk.json context and the required `notifier:emailFrom` (cdk.json has none: a deploy must
 * name it; SMS is off there, so no spend limit either), bundling skipped,
 * plus `context`, synthesizing into a folder removed after the test file.
 */
export function newApp(context: Record<string, unknown> = {}): App {
  return new App({
    outdir: testOutdir(),
    context: {
      ...cdkJsonContext(),
      'notifier:emailFrom': TEST_EMAIL_FROM,
      ...NO_BUNDLING,
      ...context,
    },
  });
}

export interface Synthesized {
  readonly app: App;
  readonly stack: NotifierStack;
  readonly template: Template;
}

/** One NotifierStack built from BASE_PROPS + `props`, synthesized to a Template. */
export function synth(props: Partial<IdempotentNotifierProps> = {}): Synthesized {
  const app = newApp();
  const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, ...props } });
  return { app, stack, template: Template.fromStack(stack) };
}

/** Builds the stack only (for tests that expect the constructor to throw). */
export function build(props: Partial<IdempotentNotifierProps> = {}): NotifierStack {
  return new NotifierStack(newApp(), 'Test', { notifier: { ...BASE_PROPS, ...props } });
}

/** The constructor's error message for props it must refuse (the stack must not be built). */
export function errorOf(props: Partial<IdempotentNotifierProps>): string {
  try {
    build(props);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be rejected');
}

/** Like {@link synth} but with cdk-nag registered the way bin/app.ts does. */
export function appWithNag(props: Partial<IdempotentNotifierProps> = {}): {
  readonly app: App;
  readonly stack: NotifierStack;
  readonly nag: AwsSolutionsChecks;
} {
  const app = newApp();
  const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, ...props } });
  const nag = new AwsSolutionsChecks(app);
  Validations.of(app).addPlugins(nag);
  return { app, stack, nag };
}

/** Logical ID of a construct's CloudFormation resource. */
export function logicalId(construct: IConstruct): string {
  const resource = construct.node.defaultChild ?? construct;
  return Stack.of(construct).getLogicalId(resource as CfnElement);
}

/** Properties of the template resource behind `construct`. */
export function propertiesOf(template: Template, construct: IConstruct): Record<string, unknown> {
  const resources = template.toJSON()['Resources'] as Record<string, { Properties?: Record<string, unknown> }>;
  const resource = resources[logicalId(construct)];
  if (!resource) throw new Error(`no resource ${logicalId(construct)} in template`);
  return resource.Properties ?? {};
}

/** All resources of one type: logical id -> properties. */
export function resourcesOfType(template: Template, type: string): Record<string, Record<string, unknown>> {
  const found = template.findResources(type) as Record<string, { Properties?: Record<string, unknown> }>;
  return Object.fromEntries(Object.entries(found).map(([id, r]) => [id, r.Properties ?? {}]));
}

/**
 * Replaces every CloudFormation intrinsic ({Ref}, {Fn::GetAtt}, {Fn::Join} ...) with a dummy string,
 * giving what the function would see at run time.
 */
export function resolveDummy(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const [fn, arg] = Object.entries(value)[0] ?? [];
    if (fn === 'Ref') return `dummy-${String(arg)}`;
    if (fn === 'Fn::GetAtt' && Array.isArray(arg)) return `dummy-${arg.join('-')}`;
    if (fn === 'Fn::Join' && Array.isArray(arg)) {
      const [sep, parts] = arg as [string, unknown[]];
      return parts.map(resolveDummy).join(sep);
    }
  }
  return `dummy-${JSON.stringify(value)}`;
}
