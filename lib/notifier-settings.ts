import { Duration, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { PENDING_SHARD_COUNT } from '../functions/core/ledger/ledger-table';
import { metricsNamespaceProblem } from '../functions/core/observability/metric-names';
import { timingViolations } from '../functions/core/queue/timing-invariants';
import type { BackoffSettings } from '../functions/core/queue/visibility-backoff';
import { backlogLossHorizonSeconds, defaultBacklogAgeAlarmSeconds } from './backlog-age';
import { ACCOUNT_ALARM_DEFAULTS, DEFAULT_SUSTAINED_RATE_LIMITING } from './alarm-options';
import { DEFAULT_METRIC_PERIOD } from './metrics';
import { DEFAULT_ENTRIES } from './notifier-function';
import type { IdempotentNotifierProps } from './notifier-props';
import { DEFAULT_TEMPLATES_DIR } from './notifier-templates';
import { resolveThrottleBackoff } from './send-pace';
import { mergeLaneViolations, resolveLanes, type ResolvedLanes } from './notifier-lanes';
import { pushEnabled, smsEnabled } from './destination-options';
import { DEFAULT_NOTIFIER_RUNTIME, type NotifierRuntime } from './lambda-runtime';
import { laneHoldsQuietHours, resolveConsent, type ResolvedConsent } from './notifier-consent';

/** Smallest allowed `maxReceiveCount`: fewer receives let throttled deliveries reach the DLQ unprocessed. */
export const MIN_MAX_RECEIVE_COUNT = 5;

/** The alarm thresholds, defaults applied (see {@link NotifierAlarmOptions} for each). */
export interface ResolvedAlarmSettings {
  readonly period: Duration;
  readonly rateEvaluationPeriods: number;
  readonly duplicateSuppressedRatePercent: number;
  readonly permanentFailureRatePercent: number;
  readonly suppressedRatePercent: number;
  readonly oldestMessageAge: Duration;
  readonly providerThrottledRatePercent: number;
  readonly sustainedRateLimiting: Duration;
  /** Threshold of `BacklogAgeNearLimit`: given, or a quarter of the loss horizon of these queue settings. */
  readonly backlogAge: Duration;
  /** The loss horizon the backlog alarm must stay below. */
  readonly backlogLossHorizon: Duration;
  /** Threshold of `SmsMonthToDateSpend`, in USD. */
  readonly smsSpendThresholdUsd: number;
  readonly sesBounceRatePercent: number;
  readonly sesComplaintRatePercent: number;
  readonly lateBouncesPerHour: number;
  readonly lateComplaintsPerHour: number;
  readonly smsSuccessRatePercent: number;
  readonly unsubscribedRatePercent: number;
  readonly optedOutRatePercent: number;
  readonly quietHoursDeferredRatePercent: number;
  /** How long quiet hours may hold a bulk record (seconds; 0 without quiet hours): the age alarms allow for it. */
  readonly quietHoursHoldSeconds: number;
}

/**
 * The props with every default applied, in one place: the construct, the environment of the functions
 * and the alarms read these, never `props.x ?? default` themselves. An existing queue's declared settings
 * win over the queue props.
 */
export interface NotifierSettings {
  readonly functionTimeout: Duration;
  readonly claimTimeout: Duration;
  readonly sendTimeout: Duration;
  readonly ledgerRetention: Duration;
  readonly replayWindow: Duration;
  readonly maxClockSkew: Duration;
  readonly visibilityTimeout: Duration;
  readonly queueRetention: Duration;
  readonly deadLetterQueueRetention: Duration;
  readonly maxReceiveCount: number;
  readonly throttleBackoff: BackoffSettings;
  /** The contact list, the bulk classes' topics and quiet hours (lib/notifier-consent.ts). */
  readonly consent: ResolvedConsent;
  /** The Lambda runtime of every function in the stack. */
  readonly lambdaRuntime: NotifierRuntime;
  /** Memory of all three functions, in MB. */
  readonly memorySize: number;
  readonly logRetention: logs.RetentionDays;
  readonly batchSize: number;
  /** The event source's batching window, in whole seconds (0: none); SQS counts it against a quiet-hours hold. */
  readonly batchingWindowSeconds: number;
  /** Most concurrent sender invocations the event source starts. */
  readonly maxConcurrency: number;
  readonly senderReservedConcurrency: number | undefined;
  /** None unless asked: a new account cannot reserve any (see `statusReservedConcurrency`). */
  readonly statusReservedConcurrency: number | undefined;
  /** Most concurrent invocations of the status function's SQS event source (End User Messaging events). */
  readonly statusMaxConcurrency: number;
  /** Processes that may send at once, each holding a share of the send rates: every sender plus the reclaimer. */
  readonly sendRateShares: number;
  /** The sender lanes (one without lanes), each with its concurrency, pace and backoff. */
  readonly lanes: ResolvedLanes;
  readonly maxConcurrentSends: number;
  readonly maxBodyBytes: number;
  readonly reclaimerSchedule: Duration;
  /** Shards of the pending index (`PENDING_INDEX_SHARDS`). */
  readonly pendingIndexShards: number;
  readonly entries: { readonly sender: string; readonly reclaimer: string; readonly status: string; readonly outcomes: string; readonly fallback: string };
  readonly templatesDir: string;
  readonly smsEnabled: boolean;
  /** Which service sends SMS (`smsProvider`). */
  readonly smsProvider: 'sns' | 'end-user-messaging';
  readonly pushEnabled: boolean;
  readonly sesEventDestination: boolean;
  readonly sesRequireTls: boolean;
  readonly smsDeliveryStatusLogs: boolean;
  readonly tableDeletionProtection: boolean;
  /** The namespace the functions emit their metrics to and the alarms and dashboard read. */
  readonly metricsNamespace: string;
  readonly alarms: ResolvedAlarmSettings;
}

/** What the defaults depend on besides the props. */
export interface SettingsContext {
  /** The notifier's own namespace, when `metricsNamespace` is not given (see `defaultMetricsNamespace`). */
  readonly defaultMetricsNamespace: string;
}

/** The defaults of {@link IdempotentNotifierProps}, each once (their `@default` tags say the same). */
export const DEFAULTS = {
  functionTimeout: Duration.seconds(30),
  claimTimeout: Duration.seconds(120),
  sendTimeout: Duration.seconds(10),
  ledgerRetention: Duration.days(30),
  replayWindow: Duration.days(7),
  maxClockSkew: Duration.minutes(5),
  /** Times the function timeout: the visibility timeout of a created queue. */
  visibilityTimeoutFactor: 6,
  queueRetention: Duration.days(4),
  deadLetterQueueRetention: Duration.days(14),
  maxReceiveCount: 100,
  memorySize: 512,
  lambdaRuntime: DEFAULT_NOTIFIER_RUNTIME,
  logRetention: logs.RetentionDays.ONE_MONTH,
  batchSize: 10,
  maxConcurrency: 10,
  /** The status function's SQS event source (End User Messaging events): its old reserved bound, now where it cannot fail a deploy. */
  statusMaxConcurrency: 5,
  maxConcurrentSends: 16,
  maxBodyBytes: 64 * 1024,
  reclaimerSchedule: Duration.minutes(1),
  pendingIndexShards: PENDING_SHARD_COUNT,
  rateEvaluationPeriods: 3,
  duplicateSuppressedRatePercent: 5,
  permanentFailureRatePercent: 5,
  suppressedRatePercent: 10,
  unsubscribedRatePercent: 5,
  optedOutRatePercent: 5,
  quietHoursDeferredRatePercent: 50,
  oldestMessageAge: Duration.minutes(15),
  providerThrottledRatePercent: 1,
} as const;

/** Share of the monthly SMS spend limit at which `SmsMonthToDateSpend` fires by default. */
export const SMS_SPEND_ALARM_SHARE = 0.8;

/** The props with every default applied. */
export function resolveSettings(props: IdempotentNotifierProps, context: SettingsContext): NotifierSettings {
  const functionTimeout = props.functionTimeout ?? DEFAULTS.functionTimeout;
  const existing = props.existingQueue;
  const maxConcurrency = props.maxConcurrency ?? DEFAULTS.maxConcurrency;
  const queueRetention = existing?.retentionPeriod ?? props.queueRetention ?? DEFAULTS.queueRetention;
  const maxReceiveCount = existing?.maxReceiveCount ?? props.maxReceiveCount ?? DEFAULTS.maxReceiveCount;
  const throttleBackoff = resolveThrottleBackoff(props.throttleBackoff);
  const backlogQueue = { retentionSeconds: queueRetention.toSeconds(), maxReceiveCount, backoff: throttleBackoff };
  const a = props.alarms ?? {};
  const consent = resolveConsent(props, ['email', ...(smsEnabled(props) ? ['sms' as const] : []), ...(pushEnabled(props) ? ['push' as const] : [])]);
  return {
    consent,
    functionTimeout,
    claimTimeout: props.claimTimeout ?? DEFAULTS.claimTimeout,
    sendTimeout: props.sendTimeout ?? DEFAULTS.sendTimeout,
    ledgerRetention: props.ledgerRetention ?? DEFAULTS.ledgerRetention,
    replayWindow: props.replayWindow ?? DEFAULTS.replayWindow,
    maxClockSkew: props.maxClockSkew ?? DEFAULTS.maxClockSkew,
    visibilityTimeout:
      existing?.visibilityTimeout ??
      props.visibilityTimeout ??
      Duration.seconds(DEFAULTS.visibilityTimeoutFactor * functionTimeout.toSeconds()),
    queueRetention,
    deadLetterQueueRetention:
      existing?.deadLetterRetentionPeriod ?? props.deadLetterQueueRetention ?? DEFAULTS.deadLetterQueueRetention,
    maxReceiveCount,
    throttleBackoff,
    lambdaRuntime: props.lambdaRuntime ?? DEFAULTS.lambdaRuntime,
    memorySize: props.memorySize ?? DEFAULTS.memorySize,
    logRetention: props.logRetention ?? DEFAULTS.logRetention,
    batchSize: props.batchSize ?? DEFAULTS.batchSize,
    batchingWindowSeconds: props.maxBatchingWindow?.toSeconds() ?? 0,
    maxConcurrency,
    sendRateShares: maxConcurrency + 1,
    lanes: resolveLanes({ lanes: props.lanes, existingQueue: existing !== undefined, maxConcurrency, throttleBackoff }),
    senderReservedConcurrency: props.senderReservedConcurrency,
    statusReservedConcurrency: props.statusReservedConcurrency,
    statusMaxConcurrency:
      props.statusMaxConcurrency ??
      Math.min(DEFAULTS.statusMaxConcurrency, Math.floor((props.statusReservedConcurrency ?? DEFAULTS.statusMaxConcurrency * 2) / statusQueueSources(props.smsProvider))),
    maxConcurrentSends: props.maxConcurrentSends ?? DEFAULTS.maxConcurrentSends,
    maxBodyBytes: props.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    reclaimerSchedule: props.reclaimerSchedule ?? DEFAULTS.reclaimerSchedule,
    pendingIndexShards: props.pendingIndexShards ?? DEFAULTS.pendingIndexShards,
    entries: {
      sender: props.senderEntry ?? DEFAULT_ENTRIES.sender,
      reclaimer: props.reclaimerEntry ?? DEFAULT_ENTRIES.reclaimer,
      status: props.statusEntry ?? DEFAULT_ENTRIES.status,
      outcomes: props.outcomesEntry ?? DEFAULT_ENTRIES.outcomes,
      fallback: props.fallbackEntry ?? DEFAULT_ENTRIES.fallback,
    },
    templatesDir: props.templatesDir ?? DEFAULT_TEMPLATES_DIR,
    smsEnabled: smsEnabled(props),
    smsProvider: props.smsProvider ?? 'sns',
    pushEnabled: pushEnabled(props),
    sesEventDestination: props.sesEventDestination ?? true,
    sesRequireTls: props.sesRequireTls ?? true,
    smsDeliveryStatusLogs: props.smsDeliveryStatusLogs ?? false,
    tableDeletionProtection: props.tableDeletionProtection ?? true,
    metricsNamespace: props.metricsNamespace ?? context.defaultMetricsNamespace,
    alarms: {
      period: a.period ?? DEFAULT_METRIC_PERIOD,
      rateEvaluationPeriods: a.rateEvaluationPeriods ?? DEFAULTS.rateEvaluationPeriods,
      duplicateSuppressedRatePercent: a.duplicateSuppressedRatePercent ?? DEFAULTS.duplicateSuppressedRatePercent,
      permanentFailureRatePercent: a.permanentFailureRatePercent ?? DEFAULTS.permanentFailureRatePercent,
      suppressedRatePercent: a.suppressedRatePercent ?? DEFAULTS.suppressedRatePercent,
      unsubscribedRatePercent: a.unsubscribedRatePercent ?? DEFAULTS.unsubscribedRatePercent,
      optedOutRatePercent: a.optedOutRatePercent ?? DEFAULTS.optedOutRatePercent,
      quietHoursDeferredRatePercent: a.quietHoursDeferredRatePercent ?? DEFAULTS.quietHoursDeferredRatePercent,
      quietHoursHoldSeconds: consent.quietHoursSeconds,
      oldestMessageAge: a.oldestMessageAge ?? DEFAULTS.oldestMessageAge,
      providerThrottledRatePercent: a.providerThrottledRatePercent ?? DEFAULTS.providerThrottledRatePercent,
      sustainedRateLimiting: a.sustainedRateLimiting ?? DEFAULT_SUSTAINED_RATE_LIMITING,
      backlogAge: a.backlogAge ?? Duration.seconds(defaultBacklogAgeAlarmSeconds(backlogQueue)),
      backlogLossHorizon: Duration.seconds(backlogLossHorizonSeconds(backlogQueue)),
      // The limit is required with SMS enabled (smsSpendViolations); without SMS there is no spend alarm.
      smsSpendThresholdUsd:
        props.smsSpendAlarmThresholdUsd ?? Math.round((props.smsMonthlySpendLimitUsd ?? 0) * SMS_SPEND_ALARM_SHARE * 100) / 100,
      sesBounceRatePercent: a.sesBounceRatePercent ?? ACCOUNT_ALARM_DEFAULTS.sesBounceRatePercent,
      sesComplaintRatePercent: a.sesComplaintRatePercent ?? ACCOUNT_ALARM_DEFAULTS.sesComplaintRatePercent,
      lateBouncesPerHour: a.lateBouncesPerHour ?? ACCOUNT_ALARM_DEFAULTS.lateBouncesPerHour,
      lateComplaintsPerHour: a.lateComplaintsPerHour ?? ACCOUNT_ALARM_DEFAULTS.lateComplaintsPerHour,
      smsSuccessRatePercent: a.smsSuccessRatePercent ?? ACCOUNT_ALARM_DEFAULTS.smsSuccessRatePercent,
    },
  };
}

/**
 * Every unsafe timing or queue setting, each message naming the values. The timing rules themselves
 * live in `functions/core/queue/timing-invariants.ts`, shared with the handler.
 */
export function settingsViolations(r: NotifierSettings): string[] {
  // Every lane's queue has the same redelivery settings; its backoff is its own (the urgent lane starts sooner).
  const violations = mergeLaneViolations(
    r.lanes.lanes.map((lane) => ({
      lane: lane.name,
      violations: timingViolations({
        functionTimeoutSeconds: r.functionTimeout.toSeconds(),
        claimTimeoutSeconds: r.claimTimeout.toSeconds(),
        sendTimeoutMs: r.sendTimeout.toMilliseconds(),
        ledgerRetentionSeconds: r.ledgerRetention.toSeconds(),
        queue: {
          visibilityTimeoutSeconds: r.visibilityTimeout.toSeconds(),
          retentionSeconds: r.queueRetention.toSeconds(),
          deadLetterRetentionSeconds: r.deadLetterQueueRetention.toSeconds(),
          replayWindowSeconds: r.replayWindow.toSeconds(),
          // The steps the lane's sender gets as THROTTLE_BACKOFF_BASE_SECONDS / _CAP_SECONDS.
          maxReceiveCount: r.maxReceiveCount,
          backoff: lane.throttleBackoff,
          // Only a lane that carries a class with quiet hours holds records for them.
          quietHoursSeconds: laneHoldsQuietHours(lane.name, r.lanes.bulkClasses, r.consent) ? r.consent.quietHoursSeconds : 0,
          batchingWindowSeconds: r.batchingWindowSeconds,
        },
      }),
    })),
  );
  violations.push(...reclaimerCoverageViolations(r));
  if (!(Number.isInteger(r.maxReceiveCount) && r.maxReceiveCount >= MIN_MAX_RECEIVE_COUNT)) {
    violations.push(
      `maxReceiveCount (${r.maxReceiveCount}) must be an integer of at least ${MIN_MAX_RECEIVE_COUNT}, ` +
        'or throttled deliveries reach the dead-letter queue unprocessed',
    );
  }
  violations.push(...concurrencyViolations(r));
  violations.push(...cpuShareViolations(r));
  const namespaceProblem = Token.isUnresolved(r.metricsNamespace) ? undefined : metricsNamespaceProblem(r.metricsNamespace);
  if (namespaceProblem) violations.push(namespaceProblem);
  const retentionSeconds = r.ledgerRetention.toSeconds();
  if (retentionSeconds % 86_400 !== 0) {
    violations.push(`ledger retention (${retentionSeconds}s) must be a whole number of days (86400s each)`);
  }
  return violations;
}

/**
 * Memory (so CPU share) per send in flight that the ledger client's timeouts were sized for: 512 MB with 16 sends
 * in flight kept the slowest ledger attempt at 2.3x below the 1.5 s request timeout, 128 MB brought its p99 within
 * 10% of it (docs/design/ledger.md, "Ledger client timeouts"). Below this, a busy event loop looks like a ledger outage.
 */
export const MIN_MEMORY_MB_PER_CONCURRENT_SEND = 32;

function cpuShareViolations(r: NotifierSettings): string[] {
  const needed = r.maxConcurrentSends * MIN_MEMORY_MB_PER_CONCURRENT_SEND;
  return r.memorySize < needed
    ? [
        `memorySize (${r.memorySize} MB) is too small for maxConcurrentSends (${r.maxConcurrentSends}): give at least ` +
          `${MIN_MEMORY_MB_PER_CONCURRENT_SEND} MB per send in flight (${needed} MB), or fewer sends in flight; with less CPU ` +
          'the ledger client\'s 1.5 s timeout starts cutting healthy requests',
      ]
    : [];
}

/**
 * The reclaimer reads the urgent lane's environment: its redelivery horizon (the longest backoff step,
 * which decides when a claim may look stale) must cover every lane's, or a bulk record could still be
 * coming back when its claim is taken over.
 */
function reclaimerCoverageViolations(r: NotifierSettings): string[] {
  const [reclaimerLane, ...others] = r.lanes.lanes;
  if (!reclaimerLane) return [];
  return others
    .filter((lane) => lane.throttleBackoff.capSeconds > reclaimerLane.throttleBackoff.capSeconds)
    .map(
      (lane) =>
        `the reclaimer does not cover the ${lane.name} lane: its longest backoff step (${lane.throttleBackoff.capSeconds}s) ` +
        `exceeds the ${reclaimerLane.name} lane's (${reclaimerLane.throttleBackoff.capSeconds}s) that the reclaimer is configured with`,
    );
}

/** Lambda's most reserved concurrency for one function (an account's default quota). */
const MAX_RESERVED_CONCURRENCY = 1000;

/** Lambda's least maximum concurrency of an SQS event source. */
const MIN_EVENT_SOURCE_MAX_CONCURRENCY = 2;

/**
 * Reserved concurrency that is not a whole number in range, or below its event source's maximum: an event source
 * does not know a function's reservation, and the batches Lambda throttles spend their receives.
 */
function concurrencyViolations(r: NotifierSettings): string[] {
  const violations: string[] = [];
  const inRange = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= MAX_RESERVED_CONCURRENCY;
  violations.push(...statusConcurrencyViolations(r, inRange));
  const sender = r.senderReservedConcurrency;
  if (sender !== undefined) {
    if (!inRange(sender)) {
      violations.push(`senderReservedConcurrency (${sender}) must be a whole number from 1 to ${MAX_RESERVED_CONCURRENCY}`);
    } else if (sender < r.maxConcurrency) {
      violations.push(
        `senderReservedConcurrency (${sender}) must be at least maxConcurrency (${r.maxConcurrency}): ` +
          'the event source would start invocations Lambda throttles, and their records would spend receives',
      );
    }
  }
  return violations;
}

/**
 * The SQS event sources of the status function: the SES events queue, and End User Messaging's events queue when it
 * texts. Each starts up to `statusMaxConcurrency` invocations ("Event source mappings don't account for reserved
 * concurrency"), so together they must fit in a reservation.
 */
function statusQueueSources(smsProvider: string | undefined): number {
  return smsProvider === 'end-user-messaging' ? 2 : 1;
}

/** The status function's reservation (opt-in) and its SQS event sources' maximum, which together must fit in it. */
function statusConcurrencyViolations(r: NotifierSettings, inRange: (n: number) => boolean): string[] {
  const violations: string[] = [];
  const reserved = r.statusReservedConcurrency;
  const max = r.statusMaxConcurrency;
  const sources = statusQueueSources(r.smsEnabled ? r.smsProvider : undefined);
  if (reserved !== undefined && !inRange(reserved)) {
    violations.push(`statusReservedConcurrency (${reserved}) must be a whole number from 1 to ${MAX_RESERVED_CONCURRENCY}`);
  }
  if (!(Number.isInteger(max) && max >= MIN_EVENT_SOURCE_MAX_CONCURRENCY && max <= MAX_RESERVED_CONCURRENCY)) {
    violations.push(`statusMaxConcurrency (${max}) must be a whole number from ${MIN_EVENT_SOURCE_MAX_CONCURRENCY} to ${MAX_RESERVED_CONCURRENCY} (Lambda's range for an SQS event source)`);
  } else if (reserved !== undefined && inRange(reserved) && max * sources > reserved) {
    violations.push(
      `statusMaxConcurrency (${max}) times the status function's ${sources} SQS event source(s) must be at most statusReservedConcurrency (${reserved}): ` +
        'together they would start invocations Lambda throttles, and their batches would spend receives toward the dead-letter queue',
    );
  }
  if (reserved !== undefined && inRange(reserved) && reserved < MIN_EVENT_SOURCE_MAX_CONCURRENCY * sources) {
    violations.push(
      `statusReservedConcurrency (${reserved}) must be at least ${MIN_EVENT_SOURCE_MAX_CONCURRENCY * sources}: each of the status function's ${sources} ` +
        `SQS event source(s) starts at least ${MIN_EVENT_SOURCE_MAX_CONCURRENCY} invocations`,
    );
  }
  return violations;
}
