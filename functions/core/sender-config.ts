import * as v from 'valibot';
import type { DestinationPolicy } from './policy/destination-policy';
import type { RedeliveryPolicy } from './ledger/stale-claim-discovery';
import { ConfigurationError } from './errors';
import { buildMessageClassRegistry, type MessageClassRegistry } from './policy/message-class';
import { METRICS_NAMESPACE_VARIABLE } from './observability/metric-names';
import { MAX_PENDING_SHARDS, PENDING_SHARD_COUNT } from './ledger/ledger-table';
import { DEFAULT_MAX_BODY_BYTES } from './event/notification-event';
import { DEFAULT_QUIET_HOURS_TIME_ZONE } from './policy/quiet-hours-deferral';
import { longestHoldSeconds } from './queue/quiet-hours-hold';
import { isTimeZone } from './event/time-zone-name';
import { describeProblems, validate } from './schema';
import type { ChannelRates } from './policy/send-rate-governor';
import type { LaneName } from './policy/send-lanes';
import type { EmailRoute } from './policy/email-route';
import { timingViolations } from './queue/timing-invariants';
import { DEFAULT_BACKOFF, MAX_VISIBILITY_SECONDS, type BackoffSettings } from './queue/visibility-backoff';

/** The environment variables the sender and reclaimer read; the CDK stack sets exactly these. */
export const ENV = {
  tableName: 'LEDGER_TABLE_NAME',
  functionTimeoutSeconds: 'FUNCTION_TIMEOUT_SECONDS',
  claimTimeoutSeconds: 'CLAIM_TIMEOUT_SECONDS',
  sendTimeoutMs: 'SEND_TIMEOUT_MS',
  ledgerRetentionDays: 'LEDGER_RETENTION_DAYS',
  maxClockSkewSeconds: 'MAX_CLOCK_SKEW_SECONDS',
  deliveryMode: 'DELIVERY_MODE',
  outboxFile: 'OUTBOX_FILE',
  emailFrom: 'EMAIL_FROM',
  /** The urgent (or single) lane's SES configuration set. */
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  /** The urgent (or single) lane's SES tenant: `TenantName` of every e-mail of a class not in SES_BULK_CLASSES. */
  sesTenantName: 'SES_TENANT_NAME',
  /** The bulk lane's SES tenant, configuration set and classes: the route of a bulk-lane class's e-mail, in every Lambda. */
  sesBulkTenantName: 'SES_BULK_TENANT_NAME',
  sesBulkConfigurationSet: 'SES_BULK_CONFIGURATION_SET',
  sesBulkClasses: 'SES_BULK_CLASSES',
  smsSenderId: 'SMS_SENDER_ID',
  smsOriginationNumber: 'SMS_ORIGINATION_NUMBER',
  smsProvider: 'SMS_PROVIDER',
  smsConfigurationSet: 'SMS_CONFIGURATION_SET',
  smsOriginationIdentity: 'SMS_ORIGINATION_IDENTITY',
  smsMaxPrice: 'SMS_MAX_PRICE',
  smsProtectConfigurationId: 'SMS_PROTECT_CONFIGURATION_ID',
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
  messageClasses: 'MESSAGE_CLASSES',
  maxConcurrentSends: 'MAX_CONCURRENT_SENDS',
  maxBodyBytes: 'MAX_BODY_BYTES',
  pendingIndexShards: 'PENDING_INDEX_SHARDS',
  sendRateEmailPerSecond: 'SEND_RATE_EMAIL_PER_SECOND',
  sendRateSmsPerSecond: 'SEND_RATE_SMS_PER_SECOND',
  sendRatePushPerSecond: 'SEND_RATE_PUSH_PER_SECOND',
  sendRateShares: 'SEND_RATE_SHARES',
  sendRateAccountShare: 'SEND_RATE_ACCOUNT_SHARE',
  sendRateYieldsToThrottling: 'SEND_RATE_YIELDS_TO_THROTTLING',
  refuseUnknownEventFields: 'REFUSE_UNKNOWN_EVENT_FIELDS',
  sendLane: 'SEND_LANE',
  sourceQueueUrl: 'SOURCE_QUEUE_URL',
  throttleBackoffBaseSeconds: 'THROTTLE_BACKOFF_BASE_SECONDS',
  throttleBackoffCapSeconds: 'THROTTLE_BACKOFF_CAP_SECONDS',
  queueMaxReceiveCount: 'QUEUE_MAX_RECEIVE_COUNT',
  queueRetentionSeconds: 'QUEUE_RETENTION_SECONDS',
  queueVisibilityTimeoutSeconds: 'QUEUE_VISIBILITY_TIMEOUT_SECONDS',
  queueBatchingWindowSeconds: 'QUEUE_BATCHING_WINDOW_SECONDS',
  pushApplicationArns: 'PUSH_APPLICATION_ARNS',
  sesContactListName: 'SES_CONTACT_LIST_NAME',
  sesTopicPrefix: 'SES_CONTACT_LIST_TOPIC_PREFIX',
  quietHoursTimeZone: 'QUIET_HOURS_DEFAULT_TIME_ZONE',
  /** Read by the metrics adapter (`metricsNamespaceFrom`): the stack's own namespace. */
  metricsNamespace: METRICS_NAMESPACE_VARIABLE,
} as const;

/** The services that can send SMS (`SMS_PROVIDER`). */
export const SMS_PROVIDERS = ['sns', 'end-user-messaging'] as const;
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

/** SNS `Publish` (settings: SMS_SENDER_ID, SMS_ORIGINATION_NUMBER), or End User Messaging SMS `SendTextMessage`. */
export type SmsProviderSettings =
  | { readonly provider: 'sns' }
  | {
      readonly provider: 'end-user-messaging';
      readonly configurationSet: string;
      readonly originationIdentity: string | undefined;
      readonly maxPrice: string | undefined;
      readonly protectConfigurationId: string | undefined;
    };

/** A variable's text as `Number()` reads it (`''` is 0, `'soon'` NaN, which is refused), as zod's `coerce` did. */
const coercedNumber = v.pipe(v.unknown(), v.transform(Number), v.number());
const positiveInt = v.pipe(coercedNumber, v.safeInteger(), v.gtValue(0));
/** A positive integer of at most `max`, `fallback` when unset. */
const positiveIntUpTo = (max: number, fallback: number) => v.optional(v.pipe(positiveInt, v.maxValue(max)), fallback);
const optionalRate = v.optional(v.pipe(coercedNumber, v.gtValue(0), v.maxValue(100_000)));
const optionalText = v.pipe(
  v.optional(v.string()),
  v.transform((value) => (value?.trim() ? value.trim() : undefined)),
);
/** A variable one delivery mode needs: always text (unset is blank), so the rule below is the only place that asks for it. */
const modeText = v.pipe(v.optional(v.string(), ''), v.trim());

/** A comma-separated list; `none` is the empty list (the stack's value when the channel is off), unset allows any. */
const optionalList = (item: v.GenericSchema<string, string>) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((value) => (value.trim() === 'none' ? [] : value.split(',').map((entry) => entry.trim()).filter(Boolean))),
      v.array(item),
    ),
  );
const APPLICATION_ARN = v.pipe(
  v.string(),
  v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:app\/[A-Za-z_]+\/[A-Za-z0-9_.-]+$/, 'must be SNS platform application ARNs'),
);

const EnvSchema = v.pipe(
  v.object({
    [ENV.tableName]: v.pipe(v.string(), v.minLength(3)),
    [ENV.functionTimeoutSeconds]: positiveInt,
    [ENV.claimTimeoutSeconds]: positiveInt,
    [ENV.sendTimeoutMs]: v.optional(positiveInt, 10_000),
    [ENV.ledgerRetentionDays]: v.optional(positiveInt, 30),
    [ENV.maxClockSkewSeconds]: v.optional(v.pipe(coercedNumber, v.safeInteger(), v.minValue(0)), 300),
    [ENV.deliveryMode]: v.optional(v.picklist(['aws', 'outbox']), 'aws'),
    [ENV.outboxFile]: modeText,
    [ENV.emailFrom]: modeText,
    [ENV.sesConfigurationSet]: optionalText,
    [ENV.sesTenantName]: optionalText,
    [ENV.sesBulkTenantName]: optionalText,
    [ENV.sesBulkConfigurationSet]: optionalText,
    [ENV.sesBulkClasses]: optionalList(v.string()),
    [ENV.smsSenderId]: optionalText,
    [ENV.smsOriginationNumber]: optionalText,
    [ENV.smsProvider]: v.optional(v.picklist(SMS_PROVIDERS), 'sns'),
    [ENV.smsConfigurationSet]: optionalText,
    [ENV.smsOriginationIdentity]: optionalText,
    // MaxPrice (US dollars per part): synth checks its form, and End User Messaging refuses a bad one as a fault of ours.
    [ENV.smsMaxPrice]: optionalText,
    [ENV.smsProtectConfigurationId]: optionalText,
    [ENV.deadLetterQueueUrl]: optionalText,
    [ENV.messageClasses]: optionalText,
    [ENV.maxConcurrentSends]: positiveIntUpTo(256, 16),
    [ENV.maxBodyBytes]: positiveIntUpTo(1024 * 1024, DEFAULT_MAX_BODY_BYTES),
    // Never below the shipped count: claims indexed before in shards up to it must stay where the reclaimer looks.
    [ENV.pendingIndexShards]: v.optional(v.pipe(positiveInt, v.minValue(PENDING_SHARD_COUNT), v.maxValue(MAX_PENDING_SHARDS)), PENDING_SHARD_COUNT),
    [ENV.sendRateEmailPerSecond]: optionalRate,
    [ENV.sendRateSmsPerSecond]: optionalRate,
    [ENV.sendRatePushPerSecond]: optionalRate,
    [ENV.sendRateShares]: positiveIntUpTo(10_000, 1),
    [ENV.sendRateAccountShare]: v.optional(v.pipe(coercedNumber, v.gtValue(0), v.maxValue(1)), 1),
    [ENV.sendRateYieldsToThrottling]: v.optional(v.picklist(['true', 'false']), 'false'),
    [ENV.refuseUnknownEventFields]: v.optional(v.picklist(['true', 'false']), 'false'),
    [ENV.sendLane]: v.optional(v.picklist(['urgent', 'bulk'])),
    [ENV.sourceQueueUrl]: optionalText,
    [ENV.throttleBackoffBaseSeconds]: v.optional(positiveInt, DEFAULT_BACKOFF.baseSeconds),
    [ENV.throttleBackoffCapSeconds]: positiveIntUpTo(MAX_VISIBILITY_SECONDS, DEFAULT_BACKOFF.capSeconds),
    [ENV.queueMaxReceiveCount]: v.optional(positiveInt),
    [ENV.queueRetentionSeconds]: v.optional(positiveInt),
    [ENV.queueVisibilityTimeoutSeconds]: v.optional(positiveInt),
    // The event source's MaximumBatchingWindowInSeconds (0 to 300): part of what SQS counts against a hold.
    [ENV.queueBatchingWindowSeconds]: v.optional(v.pipe(coercedNumber, v.safeInteger(), v.minValue(0), v.maxValue(300)), 0),
    [ENV.pushApplicationArns]: optionalList(APPLICATION_ARN),
    [ENV.sesContactListName]: optionalText,
    [ENV.sesTopicPrefix]: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9_-]{0,32}$/, 'must be at most 32 letters, digits, _ or -')), ''),
    [ENV.quietHoursTimeZone]: v.optional(
      v.pipe(v.string(), v.trim(), v.check(isTimeZone, 'must be an IANA time zone such as America/New_York')),
      DEFAULT_QUIET_HOURS_TIME_ZONE,
    ),
  }),
  // Rules across variables, checked whatever else is wrong, so one failed cold start lists them with the rest.
  v.rawCheck(({ dataset, addIssue }) => {
    // Stryker disable next-line OptionalChaining: valibot gives a root issue no path, never an empty one
    const refused = new Set(dataset.issues?.map((issue) => issue.path?.[0]?.key));
    // An issue without a path: the environment itself is not an object, so there is nothing to relate.
    if (refused.has(undefined)) return;
    const env = dataset.value as Readonly<Record<string, unknown>>;
    const require = (name: string, message: string) =>
      addIssue({ message, path: [{ type: 'object', origin: 'value', input: env, key: name, value: env[name] }] });

    // A refused DELIVERY_MODE is neither mode, so it asks for nothing.
    const mode = env[ENV.deliveryMode];
    if (mode === 'outbox' && !env[ENV.outboxFile]) require(ENV.outboxFile, 'is required when DELIVERY_MODE=outbox');
    if (mode === 'aws' && !env[ENV.emailFrom]) require(ENV.emailFrom, 'is required when DELIVERY_MODE=aws');
    if (mode === 'aws' && env[ENV.smsProvider] === 'end-user-messaging' && !env[ENV.smsConfigurationSet]) {
      require(ENV.smsConfigurationSet, 'is required with SMS_PROVIDER=end-user-messaging');
    }
    if (mode === 'aws' && !env[ENV.deadLetterQueueUrl]) {
      require(ENV.deadLetterQueueUrl, 'is required when DELIVERY_MODE=aws (invalid events are moved there with their reason)');
    }
    const queue = [ENV.queueMaxReceiveCount, ENV.queueRetentionSeconds, ENV.queueVisibilityTimeoutSeconds] as const;
    // A refused queue variable is reported as such, not counted as given.
    if (queue.some((name) => refused.has(name))) return;
    const given = queue.filter((name) => env[name] !== undefined);
    const missing = queue.filter((name) => env[name] === undefined);
    if (given.length > 0) {
      for (const name of missing) require(name, `is required with ${given.join(', ')} (the queue's redelivery is described by all three)`);
    }
  }),
);

/** Whether SMS delivery events carry the key (End User Messaging's `Context`): see `DeliveryProvider.keyedEvidence`. */
export function smsKeyedEvidence(config: Pick<SenderConfig, 'delivery'>): boolean {
  return config.delivery.mode === 'aws' && config.delivery.sms.provider === 'end-user-messaging';
}

/** Validated sender configuration. */
export interface SenderConfig {
  readonly tableName: string;
  readonly functionTimeoutMs: number;
  readonly claimTimeoutMs: number;
  readonly sendTimeoutMs: number;
  readonly retentionMs: number;
  readonly maxClockSkewMs: number;
  readonly delivery:
    | { readonly mode: 'outbox'; readonly outboxFile: string }
    | {
        readonly mode: 'aws';
        readonly emailFrom: string;
        readonly sesConfigurationSet: string | undefined;
        /** The urgent (or single) lane's SES tenant. @default none */
        readonly sesTenantName?: string;
        /** The bulk lane's SES route and classes (SES_BULK_*). @default none: every class takes the urgent route */
        readonly sesBulkRoute?: EmailRoute & { readonly classes: readonly string[] };
        readonly smsSenderId: string | undefined;
        readonly smsOriginationNumber: string | undefined;
        /** Which service sends SMS. */
        readonly sms: SmsProviderSettings;
        /** The account's SES contact list, named in every bulk e-mail's ListManagementOptions. @default none */
        readonly contactListName?: string;
      };
  readonly deadLetterQueueUrl: string | undefined;
  readonly messageClasses: MessageClassRegistry;
  readonly maxConcurrentSends: number;
  readonly maxBodyBytes: number;
  /** Dead-letter an event with a field the schema does not know (`UnknownField`) instead of ignoring the field. */
  readonly refuseUnknownEventFields: boolean;
  /** Shards of the pending index: a discoverable claim is indexed in one, the reclaimer walks them all. */
  readonly pendingIndexShards: number;
  /**
   * Account-wide sends per second per channel for this stack; a channel left out is not paced
   * (e-mail: read from SES at cold start when not set).
   */
  readonly sendRates: ChannelRates;
  /** How many processes may send at once (sender maximum concurrency + reclaimer): each gets its share of the rates. */
  readonly sendRateShares: number;
  /** This sender's lane's share of the account rates, before the split between processes (1 without lanes). */
  readonly sendRateAccountShare: number;
  /** Whether its governor gives way to throttling answers (the bulk lane's does: `BULK_LANE_YIELD`). */
  readonly yieldsToThrottling: boolean;
  /** The lane this sender consumes (in its log lines); undefined without lanes. */
  readonly lane: LaneName | undefined;
  /** The queue records come from, for their visibility backoff. */
  readonly sourceQueueUrl: string | undefined;
  readonly backoff: BackoffSettings;
  /** How the source queue redelivers; absent, every claim enters the pending index. */
  readonly redelivery: RedeliveryPolicy | undefined;
  /** Push applications allowed (PUSH_APPLICATION_ARNS; unset: any). The SMS countries are embedded in the bundle (see shipped-sms-countries.ts). */
  readonly destinations: DestinationPolicy;
  /** This stack's prefix of its SES topics (one per bulk class) in the account's contact list. */
  readonly topicPrefix: string;
  /** The zone quiet hours use for a recipient with neither a time zone nor a number's country. */
  readonly defaultTimeZone: string;
  /** The longest visibility a quiet-hours hold may ask for: SQS's 12 hours from the receive, less the batching window, the function's time and a margin. */
  readonly longestHoldSeconds: number;
}

/**
 * Reads and validates the environment once, at cold start.
 * @throws ConfigurationError listing every problem, each naming the variable and what it must be (never its value).
 */
export function loadSenderConfig(env: Readonly<Record<string, string | undefined>>): SenderConfig {
  const parsed = validate(EnvSchema, env);
  if (!parsed.success) throw new ConfigurationError(`Invalid sender configuration: ${describeProblems(parsed.problems)}`);
  const e = parsed.output;
  const violations = timingViolations({
    functionTimeoutSeconds: e[ENV.functionTimeoutSeconds],
    claimTimeoutSeconds: e[ENV.claimTimeoutSeconds],
    sendTimeoutMs: e[ENV.sendTimeoutMs],
    // Stryker disable next-line ArithmeticOperator: without queue settings (only known at synth) no rule reads the retention
    ledgerRetentionSeconds: e[ENV.ledgerRetentionDays] * 86_400,
  });
  if (violations.length > 0) throw new ConfigurationError(`Unsafe sender configuration: ${violations.join('; ')}`);
  const messageClasses = buildMessageClassRegistry(e[ENV.messageClasses]);
  // A record held by quiet hours comes back up to 12 hours later (SQS's longest visibility timeout).
  const quietHoursGapSeconds = [...messageClasses.values()].some((c) => c.quietHours) ? MAX_VISIBILITY_SECONDS : 0;

  return {
    tableName: e[ENV.tableName],
    functionTimeoutMs: e[ENV.functionTimeoutSeconds] * 1000,
    claimTimeoutMs: e[ENV.claimTimeoutSeconds] * 1000,
    sendTimeoutMs: e[ENV.sendTimeoutMs],
    retentionMs: e[ENV.ledgerRetentionDays] * 86_400_000,
    maxClockSkewMs: e[ENV.maxClockSkewSeconds] * 1000,
    // The rule above refused a blank EMAIL_FROM or OUTBOX_FILE for the mode that needs it.
    delivery:
      e[ENV.deliveryMode] === 'outbox'
        ? { mode: 'outbox', outboxFile: e[ENV.outboxFile] }
        : {
            mode: 'aws',
            emailFrom: e[ENV.emailFrom],
            sesConfigurationSet: e[ENV.sesConfigurationSet],
            ...emailRoutes(e[ENV.sesTenantName], {
              tenantName: e[ENV.sesBulkTenantName],
              configurationSetName: e[ENV.sesBulkConfigurationSet],
              classes: e[ENV.sesBulkClasses],
            }),
            smsSenderId: e[ENV.smsSenderId],
            smsOriginationNumber: e[ENV.smsOriginationNumber],
            sms:
              e[ENV.smsProvider] === 'end-user-messaging'
                ? {
                    provider: 'end-user-messaging',
                    // The rule above refused a missing configuration set for this provider.
                    configurationSet: e[ENV.smsConfigurationSet] ?? '',
                    originationIdentity: e[ENV.smsOriginationIdentity],
                    maxPrice: e[ENV.smsMaxPrice],
                    protectConfigurationId: e[ENV.smsProtectConfigurationId],
                  }
                : { provider: 'sns' },
            ...(e[ENV.sesContactListName] ? { contactListName: e[ENV.sesContactListName] } : {}),
          },
    deadLetterQueueUrl: e[ENV.deadLetterQueueUrl],
    messageClasses,
    maxConcurrentSends: e[ENV.maxConcurrentSends],
    maxBodyBytes: e[ENV.maxBodyBytes],
    refuseUnknownEventFields: e[ENV.refuseUnknownEventFields] === 'true',
    pendingIndexShards: e[ENV.pendingIndexShards],
    sendRates: definedRates({
      email: e[ENV.sendRateEmailPerSecond],
      sms: e[ENV.sendRateSmsPerSecond],
      push: e[ENV.sendRatePushPerSecond],
    }),
    sendRateShares: e[ENV.sendRateShares],
    sendRateAccountShare: e[ENV.sendRateAccountShare],
    yieldsToThrottling: e[ENV.sendRateYieldsToThrottling] === 'true',
    lane: e[ENV.sendLane],
    sourceQueueUrl: e[ENV.sourceQueueUrl],
    backoff: { baseSeconds: e[ENV.throttleBackoffBaseSeconds], capSeconds: e[ENV.throttleBackoffCapSeconds] },
    redelivery: redeliveryPolicy(
      e[ENV.queueMaxReceiveCount],
      e[ENV.queueRetentionSeconds],
      e[ENV.queueVisibilityTimeoutSeconds],
      Math.max(e[ENV.throttleBackoffCapSeconds], quietHoursGapSeconds),
    ),
    destinations: e[ENV.pushApplicationArns] ? { pushApplicationArns: e[ENV.pushApplicationArns] } : {},
    topicPrefix: e[ENV.sesTopicPrefix],
    defaultTimeZone: e[ENV.quietHoursTimeZone],
    longestHoldSeconds: longestHoldSeconds({ functionTimeoutSeconds: e[ENV.functionTimeoutSeconds], batchingWindowSeconds: e[ENV.queueBatchingWindowSeconds] }),
  };
}

/** The tenant and the bulk route, each only when set (a bulk route needs its classes). */
function emailRoutes(
  tenantName: string | undefined,
  bulk: EmailRoute & { readonly classes: readonly string[] | undefined },
): { sesTenantName?: string; sesBulkRoute?: EmailRoute & { readonly classes: readonly string[] } } {
  const { classes, ...route } = bulk;
  return {
    ...(tenantName ? { sesTenantName: tenantName } : {}),
    ...(classes && classes.length > 0 ? { sesBulkRoute: { ...route, classes } } : {}),
  };
}

/** `longestDeferralSeconds`: the longest a backed-off record stays away (the backoff cap, or quiet hours' 12 hours). */
function redeliveryPolicy(
  maxReceiveCount: number | undefined,
  retentionSeconds: number | undefined,
  visibilityTimeoutSeconds: number | undefined,
  longestDeferralSeconds: number,
): RedeliveryPolicy | undefined {
  if (maxReceiveCount === undefined || retentionSeconds === undefined || visibilityTimeoutSeconds === undefined) return undefined;
  return {
    maxReceiveCount,
    retentionMs: retentionSeconds * 1000,
    longestRedeliveryGapMs: Math.max(visibilityTimeoutSeconds, longestDeferralSeconds) * 1000,
  };
}

function definedRates(rates: Record<'email' | 'sms' | 'push', number | undefined>): ChannelRates {
  return Object.fromEntries(Object.entries(rates).filter(([, rate]) => rate !== undefined));
}
