import { Duration } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { MessageClassDefinition } from '../functions/core/policy/message-class';
import type { NotifierRuntime } from './lambda-runtime';
import type { IdempotentNotifierProps, ProducerEventRule } from './notifier';

/** Prefix of every context key this app reads (in cdk.json or `cdk synth -c notifier:KEY=VALUE`). */
export const CONTEXT_PREFIX = 'notifier:';

/**
 * The context keys the app reads, without the prefix. Values may be JSON values (cdk.json)
 * or strings (`-c` on the command line). Unknown `notifier:` keys are rejected so a typo
 * cannot silently fall back to a default.
 */
export const CONTEXT_KEYS = [
  'stackName',
  'emailFrom',
  'sesIdentity',
  'sesConfigurationSetName',
  'sesRequireTls',
  'smsEnabled',
  'smsSenderId',
  'smsOriginationNumber',
  'smsProvider',
  'smsOriginationIdentities',
  'smsMaxPriceUsd',
  'smsProtectConfigurationId',
  'smsCountries',
  'smsMonthlySpendLimitUsd',
  'smsSpendAlarmThresholdUsd',
  'pushEnabled',
  'pushPlatformApplications',
  'messageClasses',
  'contactListName',
  'contactListTopicPrefix',
  'createContactList',
  'quietHoursTimeZone',
  'producerTopicArns',
  'producerEventRules',
  'functionTimeoutSeconds',
  'claimTimeoutSeconds',
  'sendTimeoutMs',
  'memorySize',
  'lambdaRuntime',
  'visibilityTimeoutSeconds',
  'queueRetentionDays',
  'deadLetterQueueRetentionDays',
  'replayWindowDays',
  'ledgerRetentionDays',
  'maxClockSkewSeconds',
  'refuseUnknownEventFields',
  'maxReceiveCount',
  'batchSize',
  'maxBatchingWindowSeconds',
  'maxConcurrency',
  'lanes',
  'bulkClasses',
  'bulkRateShare',
  'urgentMaxConcurrency',
  'urgentThrottleBackoffBaseSeconds',
  'senderReservedConcurrency',
  'statusReservedConcurrency',
  'statusMaxConcurrency',
  'maxConcurrentSends',
  'maxBodyBytes',
  'sendRateEmailPerSecond',
  'sendRateSmsPerSecond',
  'sendRatePushPerSecond',
  'throttleBackoffBaseSeconds',
  'throttleBackoffCapSeconds',
  'logRetentionDays',
  'tableDeletionProtection',
  'reclaimerScheduleMinutes',
  'pendingIndexShards',
  'sesEventDestination',
  'sesEventBridgeRule',
  'smsDeliveryStatusLogs',
  'smsDeliveryStatusSuccessSamplingPercent',
  'alarmEmails',
  'alarmTopicArn',
  'alarmPeriodMinutes',
  'duplicateSuppressedRatePercent',
  'permanentFailureRatePercent',
  'suppressedRatePercent',
  'oldestMessageAgeMinutes',
  'providerThrottledRatePercent',
  'sustainedRateLimitingMinutes',
  'backlogAgeMinutes',
  'sesBounceRatePercent',
  'sesComplaintRatePercent',
  'lateBouncesPerHour',
  'lateComplaintsPerHour',
  'smsSuccessRatePercent',
  'metricsNamespace',
  'dashboardName',
  'encryptionKeyArn',
  'templatesDir',
] as const;

/** A context key, without the prefix. */
export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Default stack name when `notifier:stackName` is not set. */
export const DEFAULT_STACK_NAME = 'IdempotentNotifier';

/** A `notifier:*` context value that cannot be read: the keys to change, and why. */
export class NotifierContextError extends Error {
  override readonly name = 'NotifierContextError';
  constructor(
    /** The context keys to change, with their `notifier:` prefix. */
    readonly keys: readonly string[],
    message: string,
  ) {
    super(message);
  }
}

/** Reads the app's `notifier:*` context with type checks; every error names the key and its value. */
export class NotifierContext {
  constructor(private readonly scope: Construct) {
    const known = new Set<string>(CONTEXT_KEYS.map((k) => CONTEXT_PREFIX + k));
    const all: Record<string, unknown> = scope.node.getAllContext();
    const unknown = Object.keys(all).filter((k) => k.startsWith(CONTEXT_PREFIX) && !known.has(k));
    if (unknown.length > 0) {
      throw new NotifierContextError(unknown, `Unknown context key(s): ${unknown.join(', ')}. Known: ${[...known].join(', ')}`);
    }
  }

  /** The raw value, or undefined when unset, null or an empty string. */
  raw(key: ContextKey): unknown {
    const value: unknown = this.scope.node.tryGetContext(CONTEXT_PREFIX + key);
    return value === null || value === '' ? undefined : value;
  }

  string(key: ContextKey): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw this.error(key, value, 'a string');
    return value;
  }

  number(key: ContextKey): number | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
    if (!Number.isFinite(n)) throw this.error(key, value, 'a number');
    return n;
  }

  boolean(key: ContextKey): boolean | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw this.error(key, value, 'true or false');
  }

  /** A JSON array, a JSON-encoded array, or (for strings) a comma-separated list. */
  list(key: ContextKey): unknown[] | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    if (typeof value === 'string') {
      const text = value.trim();
      if (text.startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw this.error(key, value, 'a list (this one is not valid JSON)');
        }
        if (Array.isArray(parsed)) return parsed;
      } else {
        return text.split(',').map((s) => s.trim()).filter(Boolean);
      }
    }
    throw this.error(key, value, 'a list');
  }

  private error(key: ContextKey, value: unknown, expected: string): Error {
    return new NotifierContextError([CONTEXT_PREFIX + key], `Context ${CONTEXT_PREFIX}${key} (${JSON.stringify(value)}) must be ${expected}`);
  }
}

const seconds = (n: number | undefined): Duration | undefined => (n === undefined ? undefined : Duration.seconds(n));
const minutes = (n: number | undefined): Duration | undefined => (n === undefined ? undefined : Duration.minutes(n));
const days = (n: number | undefined): Duration | undefined => (n === undefined ? undefined : Duration.days(n));

/**
 * Builds {@link IdempotentNotifierProps} from the `notifier:*` context (cdk.json, `-c`).
 * Unset keys leave the construct's defaults in place. `alarmTopicArn` imports a topic and
 * `encryptionKeyArn` a KMS key into `scope`.
 *
 * @throws Error when `notifier:emailFrom` is missing or a value has the wrong type.
 */
export function notifierPropsFromContext(scope: Construct): IdempotentNotifierProps {
  const c = new NotifierContext(scope);
  const emailFrom = c.string('emailFrom');
  if (!emailFrom) {
    throw new NotifierContextError(
      [`${CONTEXT_PREFIX}emailFrom`],
      `Context ${CONTEXT_PREFIX}emailFrom is required: the From address of every e-mail, on an identity verified in SES. ` +
        `Set it in cdk.json ("${CONTEXT_PREFIX}emailFrom") or on the command line: ` +
        `npm run synth -- -c ${CONTEXT_PREFIX}emailFrom=notifications@mail.yourcompany.com (npx cdk deploy takes the same -c)`,
    );
  }
  const logRetentionDays = c.number('logRetentionDays');
  if (logRetentionDays !== undefined && !Object.values(logs.RetentionDays).includes(logRetentionDays)) {
    throw new NotifierContextError(
      [`${CONTEXT_PREFIX}logRetentionDays`],
      `Context ${CONTEXT_PREFIX}logRetentionDays (${logRetentionDays}) must be one of CloudWatch Logs' retention values ` +
        `(${Object.values(logs.RetentionDays).filter((v) => typeof v === 'number').join(', ')})`,
    );
  }
  const alarmTopicArn = c.string('alarmTopicArn');
  const encryptionKeyArn = c.string('encryptionKeyArn');
  const sendTimeoutMs = c.number('sendTimeoutMs');
  const throttleBackoff = { base: seconds(c.number('throttleBackoffBaseSeconds')), cap: seconds(c.number('throttleBackoffCapSeconds')) };
  return {
    emailFrom,
    sesIdentity: c.string('sesIdentity'),
    sesConfigurationSetName: c.string('sesConfigurationSetName'),
    sesRequireTls: c.boolean('sesRequireTls'),
    smsEnabled: c.boolean('smsEnabled'),
    smsSenderId: c.string('smsSenderId'),
    smsOriginationNumber: c.string('smsOriginationNumber'),
    // Checked by the construct, which names a value that is neither provider.
    smsProvider: c.string('smsProvider') as IdempotentNotifierProps['smsProvider'],
    smsOriginationIdentities: c.list('smsOriginationIdentities')?.map(String),
    smsMaxPriceUsd: c.string('smsMaxPriceUsd'),
    smsProtectConfigurationId: c.string('smsProtectConfigurationId'),
    // Checked by the construct, which names every code that is no country.
    smsCountries: c.list('smsCountries')?.map((code) => String(code).trim().toUpperCase()),
    smsMonthlySpendLimitUsd: c.number('smsMonthlySpendLimitUsd'),
    smsSpendAlarmThresholdUsd: c.number('smsSpendAlarmThresholdUsd'),
    pushEnabled: c.boolean('pushEnabled'),
    pushPlatformApplications: c.list('pushPlatformApplications')?.map(String),
    // Shape-checked by the construct (buildMessageClassRegistry), which names the bad entry.
    messageClasses: c.list('messageClasses') as MessageClassDefinition[] | undefined,
    contactList: definedOnly({
      contactListName: c.string('contactListName'),
      topicPrefix: c.string('contactListTopicPrefix'),
      create: c.boolean('createContactList'),
    }),
    quietHoursTimeZone: c.string('quietHoursTimeZone'),
    producerTopicArns: c.list('producerTopicArns')?.map(String),
    producerEventRules: c.list('producerEventRules') as ProducerEventRule[] | undefined,
    functionTimeout: seconds(c.number('functionTimeoutSeconds')),
    claimTimeout: seconds(c.number('claimTimeoutSeconds')),
    sendTimeout: sendTimeoutMs === undefined ? undefined : Duration.millis(sendTimeoutMs),
    memorySize: c.number('memorySize'),
    // Checked by the construct, which names the runtimes it runs on.
    lambdaRuntime: c.string('lambdaRuntime') as NotifierRuntime | undefined,
    visibilityTimeout: seconds(c.number('visibilityTimeoutSeconds')),
    queueRetention: days(c.number('queueRetentionDays')),
    deadLetterQueueRetention: days(c.number('deadLetterQueueRetentionDays')),
    replayWindow: days(c.number('replayWindowDays')),
    ledgerRetention: days(c.number('ledgerRetentionDays')),
    maxClockSkew: seconds(c.number('maxClockSkewSeconds')),
    refuseUnknownEventFields: c.boolean('refuseUnknownEventFields'),
    maxReceiveCount: c.number('maxReceiveCount'),
    batchSize: c.number('batchSize'),
    maxBatchingWindow: seconds(c.number('maxBatchingWindowSeconds')),
    maxConcurrency: c.number('maxConcurrency'),
    // `notifier:lanes=false` keeps one queue; the other lane keys shape the two lanes (checked by the construct).
    lanes:
      c.boolean('lanes') === false
        ? false
        : {
            bulkClasses: c.list('bulkClasses')?.map(String),
            bulkRateShare: c.number('bulkRateShare'),
            urgentMaxConcurrency: c.number('urgentMaxConcurrency'),
            urgentThrottleBackoffBase: seconds(c.number('urgentThrottleBackoffBaseSeconds')),
          },
    senderReservedConcurrency: c.number('senderReservedConcurrency'),
    statusReservedConcurrency: c.number('statusReservedConcurrency'),
    statusMaxConcurrency: c.number('statusMaxConcurrency'),
    maxConcurrentSends: c.number('maxConcurrentSends'),
    maxBodyBytes: c.number('maxBodyBytes'),
    // Range-checked by the construct, which names every bad value.
    sendRates: {
      emailPerSecond: c.number('sendRateEmailPerSecond'),
      smsPerSecond: c.number('sendRateSmsPerSecond'),
      pushPerSecond: c.number('sendRatePushPerSecond'),
    },
    throttleBackoff,
    logRetention: logRetentionDays as logs.RetentionDays | undefined,
    tableDeletionProtection: c.boolean('tableDeletionProtection'),
    reclaimerSchedule: minutes(c.number('reclaimerScheduleMinutes')),
    pendingIndexShards: c.number('pendingIndexShards'),
    sesEventDestination: c.boolean('sesEventDestination'),
    sesEventBridgeRule: c.boolean('sesEventBridgeRule'),
    smsDeliveryStatusLogs: c.boolean('smsDeliveryStatusLogs'),
    smsDeliveryStatusSuccessSamplingPercent: c.number('smsDeliveryStatusSuccessSamplingPercent'),
    dashboardName: c.string('dashboardName'),
    metricsNamespace: c.string('metricsNamespace'),
    templatesDir: c.string('templatesDir'),
    encryptionKey: encryptionKeyArn ? kms.Key.fromKeyArn(scope, 'ImportedEncryptionKey', encryptionKeyArn) : undefined,
    alarms: {
      emails: c.list('alarmEmails')?.map(String),
      topic: alarmTopicArn ? sns.Topic.fromTopicArn(scope, 'ImportedAlarmTopic', alarmTopicArn) : undefined,
      period: minutes(c.number('alarmPeriodMinutes')),
      duplicateSuppressedRatePercent: c.number('duplicateSuppressedRatePercent'),
      permanentFailureRatePercent: c.number('permanentFailureRatePercent'),
      suppressedRatePercent: c.number('suppressedRatePercent'),
      oldestMessageAge: minutes(c.number('oldestMessageAgeMinutes')),
      providerThrottledRatePercent: c.number('providerThrottledRatePercent'),
      sustainedRateLimiting: minutes(c.number('sustainedRateLimitingMinutes')),
      backlogAge: minutes(c.number('backlogAgeMinutes')),
      sesBounceRatePercent: c.number('sesBounceRatePercent'),
      sesComplaintRatePercent: c.number('sesComplaintRatePercent'),
      lateBouncesPerHour: c.number('lateBouncesPerHour'),
      lateComplaintsPerHour: c.number('lateComplaintsPerHour'),
      smsSuccessRatePercent: c.number('smsSuccessRatePercent'),
    },
  };
}

/** The object with its undefined entries left out, or undefined when none is left. */
function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as Partial<T>) : undefined;
}
