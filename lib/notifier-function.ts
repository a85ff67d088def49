import { join } from 'node:path';
import { Annotations, Aws, type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { HANDLER_FILE, notifierHandlerCode } from './function-bundle';
import { lambdaRuntimeOf, type NotifierRuntime } from './lambda-runtime';
import { templateBundling } from './notifier-templates';
import { PACKAGE_ROOT } from '../functions/adapters/package-root';
import { accountScopedServicePrincipal } from './service-principal';

/** The handler entries shipped in this package (TypeScript sources, bundled at synth). */
export const DEFAULT_ENTRIES = {
  sender: join(PACKAGE_ROOT, 'functions', 'sender', 'handler.ts'),
  reclaimer: join(PACKAGE_ROOT, 'functions', 'reclaimer', 'handler.ts'),
  status: join(PACKAGE_ROOT, 'functions', 'status', 'handler.ts'),
  outcomes: join(PACKAGE_ROOT, 'functions', 'outcomes', 'handler.ts'),
  fallback: join(PACKAGE_ROOT, 'functions', 'fallback', 'handler.ts'),
} as const;

/** Settings of one notifier function. */
export interface NotifierFunctionOptions {
  /** Entry file of the handler (exports `handler`). */
  readonly entry: string;
  /** Function description. */
  readonly description: string;
  /** Function timeout. */
  readonly timeout: Duration;
  /** Memory in MB. */
  readonly memorySize: number;
  /** Its Lambda runtime, and the target its bundle is built for. */
  readonly runtime: NotifierRuntime;
  /** Retention of its log group. */
  readonly logRetention: logs.RetentionDays;
  /**
   * KMS key of its log group.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
  /** Environment variables. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Concurrency reserved for the function: also the most instances that run at once.
   * @default - none reserved: the function shares the account's unreserved concurrency
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Templates folder to validate at synth and embed in the bundle (the sender renders from it).
   * @default - none embedded: the function renders no templates
   */
  readonly templatesDir?: string;
  /**
   * Further identifiers esbuild replaces in the bundle (the SMS country table, lib/destination-options.ts).
   * @default - none
   */
  readonly define?: Readonly<Record<string, string>>;
}

/** A notifier function with its own log group and execution role. */
export interface NotifierFunction {
  /** The function. */
  readonly fn: lambda.Function;
  /** Its log group (data-protection policy attached). */
  readonly logGroup: logs.LogGroup;
  /** Its execution role: write to its own log group only; callers add what the code calls. */
  readonly role: iam.Role;
}

/**
 * Creates `${id}Logs`, `${id}Role` and the function `${id}` in `scope`: `options.runtime` on arm64, bundled
 * as ESM with the local esbuild (no Docker), JSON logs to its own log group that masks e-mail addresses
 * and phone numbers, and a role that may only write that log group (no managed policies).
 * The sender, the reclaimer and the delivery-status function share it.
 */
export function createNotifierFunction(scope: Construct, id: string, options: NotifierFunctionOptions): NotifierFunction {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    retention: options.logRetention,
    encryptionKey: options.logEncryptionKey,
    dataProtectionPolicy: maskingPolicy(),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: accountScopedServicePrincipal('lambda.amazonaws.com'),
    description: `Execution role of the notifier ${id.toLowerCase()}`,
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'WriteOwnLogs',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  const templates = options.templatesDir ? templateBundling(options.templatesDir) : undefined;
  const fn = new lambda.Function(scope, id, {
    code: notifierHandlerCode(options.entry, {
      define: { ...options.define, ...(templates?.define ?? {}) },
      runtime: options.runtime,
    }),
    handler: `${HANDLER_FILE.replace(/\.mjs$/, '')}.handler`,
    description: options.description,
    runtime: lambdaRuntimeOf(options.runtime),
    architecture: lambda.Architecture.ARM_64,
    timeout: options.timeout,
    memorySize: options.memorySize,
    reservedConcurrentExecutions: options.reservedConcurrentExecutions,
    role,
    logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    environment: { ...options.environment },
  });
  for (const note of templates?.notes ?? []) Annotations.of(fn).addInfo(`templates: ${note}`);
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'The runtime is a tested setting (lambdaRuntime: Node.js 24 by default, 22 for a team that must stay on it); ' +
      'moving to a newer runtime is a deliberate, tested change.',
  });
  return { fn, logGroup, role };
}

/**
 * Every phone number the event validator accepts (E.164: `+`, then 7 to 15 digits, the first not 0;
 * `functions/core/event/recipient-address.ts`), wherever it appears in a log line.
 */
export const E164_LOG_MASK_PATTERN = '\\+[1-9][0-9]{6,14}';

const MASKING_POLICY_NAME = 'notifier-mask-recipient-addresses';
const MASKING_POLICY_DESCRIPTION = 'Masks e-mail addresses and phone numbers written to the notifier logs';
/** The managed data identifiers masked in every log group that can hold an address. */
const MASKED_IDENTIFIERS = [
  logs.DataIdentifier.EMAILADDRESS,
  logs.DataIdentifier.PHONENUMBER_BR,
  logs.DataIdentifier.PHONENUMBER_DE,
  logs.DataIdentifier.PHONENUMBER_ES,
  logs.DataIdentifier.PHONENUMBER_FR,
  logs.DataIdentifier.PHONENUMBER_GB,
  logs.DataIdentifier.PHONENUMBER_IT,
  logs.DataIdentifier.PHONENUMBER_US,
] as const;
/** Any other country: E.164 as the SMS API takes it. */
const E164_IDENTIFIER_NAME = 'E164PhoneNumber';

/** Masks e-mail addresses and phone numbers in the functions' logs. */
export function maskingPolicy(): logs.DataProtectionPolicy {
  return new logs.DataProtectionPolicy({
    name: MASKING_POLICY_NAME,
    description: MASKING_POLICY_DESCRIPTION,
    identifiers: [...MASKED_IDENTIFIERS, new logs.CustomDataIdentifier(E164_IDENTIFIER_NAME, E164_LOG_MASK_PATTERN)],
  });
}

/**
 * The same policy as the document `PutDataProtectionPolicy` takes, for log groups this stack does not own
 * (the SNS SMS delivery-status groups): the form CloudFormation gets from {@link maskingPolicy}.
 */
export function maskingPolicyDocument(): Record<string, unknown> {
  const identifiers = [
    ...MASKED_IDENTIFIERS.map((id) => `arn:${Aws.PARTITION}:dataprotection::aws:data-identifier/${id.name}`),
    E164_IDENTIFIER_NAME,
  ];
  return {
    Name: MASKING_POLICY_NAME,
    Description: MASKING_POLICY_DESCRIPTION,
    Version: '2021-06-01',
    Statement: [
      { Sid: 'audit-statement-cdk', DataIdentifier: identifiers, Operation: { Audit: { FindingsDestination: {} } } },
      { Sid: 'redact-statement-cdk', DataIdentifier: identifiers, Operation: { Deidentify: { MaskConfig: {} } } },
    ],
    Configuration: { CustomDataIdentifier: [{ Name: E164_IDENTIFIER_NAME, Regex: E164_LOG_MASK_PATTERN }] },
  };
}
