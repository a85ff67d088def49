import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { BackoffSettings } from '../../functions/core/queue/visibility-backoff';
import type { CpuUse } from './cpu-sampler';
import type { AcceptedSend } from './provider-services';
import type { ProviderRequestCounts, RequestCountsByChannel } from './counting-provider';
import type { PaceChannel, PaceWorkload } from './pace-workload';
import { quantile, round } from '../../local/stats';

/** The figures of one provider-pace run. Times in seconds. */
export interface PaceRunResult {
  readonly label: string;
  readonly rateLimiting: boolean;
  readonly backoff: BackoffSettings;
  readonly messages: number;
  readonly perChannel: Readonly<Record<PaceChannel, number>>;
  readonly quotas: Readonly<Record<PaceChannel, number>>;
  /** Calls that left the sender for SES or SNS. */
  readonly providerRequests: number;
  /** Answers refusing over the rate or the daily quota. */
  readonly throttlingResponses: number;
  readonly throttlingPercent: number;
  readonly requestsByChannel: Readonly<Record<PaceChannel, ProviderRequestCounts>>;
  readonly sent: number;
  readonly failed: number;
  readonly unknown: number;
  readonly pending: number;
  readonly deadLettered: number;
  readonly deadLetterReasons: Readonly<Record<string, number>>;
  /** Neither settled, nor dead-lettered, nor still on the queue; or SENT in the ledger with no send the provider accepted. */
  readonly lost: number;
  readonly stillQueued: number;
  /** Sends the local providers accepted, counted per idempotency key on their side. */
  readonly acceptedSends: number;
  readonly distinctKeysAccepted: number;
  /** Accepted sends beyond the first for a key. */
  readonly duplicateSends: number;
  readonly drained: boolean;
  readonly enqueueSeconds: number;
  /** From the first poll to the last acknowledgement (or to giving up). */
  readonly wallSeconds: number;
  /** Messages per channel ÷ its quota, the slowest channel. */
  readonly idealSeconds: number;
  readonly idealChannel: PaceChannel;
  readonly wallToIdeal: number;
  readonly recordsBackedOff: number;
  readonly rateLimitedDeferrals: number;
  readonly receives: number;
  readonly redeliveries: number;
  /** Invocations by how they ended: a response, a throw, or killed at the function timeout. */
  readonly invocationEndings: Readonly<Record<string, number>>;
  /** DeleteMessageBatch entries refused (a receipt handle that expired meanwhile). */
  readonly deleteFailures: number;
  /** Invocation durations (delete included) and the pause between one environment's invocations, ms. */
  readonly invocationTimes: { readonly p50Ms: number; readonly p90Ms: number; readonly gapP50Ms: number };
  /** The sender's warning and error log lines, by message. */
  readonly senderWarnings: Readonly<Record<string, number>>;
  /** Seconds from the first poll until 50%, 99% and 100% of the accepted sends were accepted. */
  readonly acceptedBy: { readonly p50: number; readonly p99: number; readonly all: number };
  /** Sends per second each provider accepted between 10% and 90% of its sends (the steady phase). */
  readonly steadyRate: Readonly<Record<PaceChannel, number>>;
  /**
   * CPU from the first poll until 99% of the sends were accepted (1.0 = one core): this process
   * (the sender), each child (dynalite; SQS, SES and SNS), and the whole machine, other work included.
   */
  readonly cpu: CpuUse;
  readonly eventLoopDelayP99Ms: number;
}

export interface PaceRunInputs {
  readonly options: {
    readonly label: string;
    readonly rateLimiting: boolean;
    readonly quotas: Readonly<Record<PaceChannel, number>>;
  };
  readonly backoff: BackoffSettings;
  readonly workload: PaceWorkload;
  readonly requests: RequestCountsByChannel;
  readonly metrics: InMemoryMetrics;
  readonly rows: readonly LedgerRow[];
  /** The notifier.failureReason attribute of each DLQ message (undefined: SQS's redrive moved it). */
  readonly deadLetterReasons: readonly (string | undefined)[];
  /** Every send the local SES and SNS accepted, counted on their side. */
  readonly accepted: readonly AcceptedSend[];
  readonly stillQueued: number;
  readonly drained: boolean;
  readonly enqueueMs: number;
  readonly drainMs: number;
  readonly receives: number;
  readonly redeliveries: number;
  readonly invocationEndings: Readonly<Record<string, number>>;
  readonly deleteFailures: number;
  readonly invocationTimes: { readonly p50Ms: number; readonly p90Ms: number; readonly gapP50Ms: number };
  readonly senderWarnings: Readonly<Record<string, number>>;
  readonly drainStartedAt: number;
  readonly cpuUntil: (untilMs: number) => CpuUse;
  readonly eventLoopDelayP99Ms: number;
}

const CHANNELS: readonly PaceChannel[] = ['email', 'sms'];
const zero = (): ProviderRequestCounts => ({ requests: 0, sent: 0, throttled: 0, quotaExhausted: 0, permanent: 0, ambiguous: 0, otherTransient: 0 });

export function summarisePaceRun(input: PaceRunInputs): PaceRunResult {
  const { options, workload } = input;
  const byChannel = { email: input.requests.email ?? zero(), sms: input.requests.sms ?? zero() };
  const providerRequests = CHANNELS.reduce((n, c) => n + byChannel[c].requests, 0);
  const throttlingResponses = CHANNELS.reduce((n, c) => n + byChannel[c].throttled + byChannel[c].quotaExhausted, 0);

  const states = { SENT: 0, FAILED: 0, UNKNOWN: 0, SUPPRESSED: 0, PENDING: 0 };
  for (const row of input.rows) states[row.state] += 1;
  const acceptedPerKey = new Map<string, number>();
  for (const { key } of input.accepted) acceptedPerKey.set(key, (acceptedPerKey.get(key) ?? 0) + 1);
  const sentNeverAccepted = input.rows.filter((r) => r.state === 'SENT' && !acceptedPerKey.has(r.key)).length;
  const deadLetterReasons: Record<string, number> = {};
  for (const reason of input.deadLetterReasons) {
    const name = reason ? `invalid event: ${reason}` : 'maxReceiveCount exceeded';
    deadLetterReasons[name] = (deadLetterReasons[name] ?? 0) + 1;
  }
  const deadLettered = input.deadLetterReasons.length;
  const accountedFor = states.SENT + states.FAILED + states.UNKNOWN + states.SUPPRESSED + deadLettered + input.stillQueued;
  const lost = Math.max(0, workload.bodies.length - accountedFor) + sentNeverAccepted;

  const ideal = CHANNELS.map((c) => ({ channel: c, seconds: workload.perChannel[c] / options.quotas[c] })).reduce((a, b) => (b.seconds > a.seconds ? b : a));
  const wallSeconds = input.drainMs / 1000;
  const times = input.accepted.map((a) => a.acceptedAt);
  // No accepted send yet: 0 s after the drain started.
  const sinceStart = (values: readonly number[], q: number) => ((values.length === 0 ? input.drainStartedAt : quantile(values, q)) - input.drainStartedAt) / 1000;
  return {
    label: options.label,
    rateLimiting: options.rateLimiting,
    backoff: input.backoff,
    messages: workload.bodies.length,
    perChannel: workload.perChannel,
    quotas: options.quotas,
    providerRequests,
    throttlingResponses,
    throttlingPercent: providerRequests > 0 ? round((100 * throttlingResponses) / providerRequests, 3) : 0,
    requestsByChannel: byChannel,
    sent: states.SENT,
    failed: states.FAILED,
    unknown: states.UNKNOWN,
    pending: states.PENDING,
    deadLettered,
    deadLetterReasons,
    lost,
    stillQueued: input.stillQueued,
    acceptedSends: input.accepted.length,
    distinctKeysAccepted: acceptedPerKey.size,
    duplicateSends: [...acceptedPerKey.values()].reduce((n, count) => n + count - 1, 0),
    drained: input.drained,
    enqueueSeconds: round(input.enqueueMs / 1000, 1),
    wallSeconds: round(wallSeconds, 1),
    idealSeconds: round(ideal.seconds, 1),
    idealChannel: ideal.channel,
    wallToIdeal: round(wallSeconds / ideal.seconds, 3),
    recordsBackedOff: input.metrics.get(METRIC.RecordBackedOff),
    rateLimitedDeferrals: input.metrics.get(METRIC.RateLimitedDeferral),
    receives: input.receives,
    redeliveries: input.redeliveries,
    invocationEndings: input.invocationEndings,
    deleteFailures: input.deleteFailures,
    invocationTimes: input.invocationTimes,
    senderWarnings: input.senderWarnings,
    acceptedBy: {
      p50: round(sinceStart(times, 0.5), 1),
      p99: round(sinceStart(times, 0.99), 1),
      all: round(sinceStart(times, 1), 1),
    },
    steadyRate: { email: steadyRate(input.accepted, 'email'), sms: steadyRate(input.accepted, 'sms') },
    cpu: input.cpuUntil(input.drainStartedAt + sinceStart(times, 0.99) * 1000),
    eventLoopDelayP99Ms: round(input.eventLoopDelayP99Ms, 1),
  };
}

/** Sends per second of one channel between its 10% and 90% marks. */
function steadyRate(accepted: readonly AcceptedSend[], channel: PaceChannel): number {
  const times = accepted.filter((a) => a.channel === channel).map((a) => a.acceptedAt).sort((a, b) => a - b);
  const from = Math.floor(times.length * 0.1);
  const to = Math.ceil(times.length * 0.9) - 1;
  const start = times[from];
  const end = times[to];
  if (start === undefined || end === undefined || end <= start) return 0;
  return round((to - from) / ((end - start) / 1000), 1);
}

/** The goals for one run; the throttling and wall-time goals apply with rate limiting on. */
export interface PaceGoals {
  readonly noneFailedLostOrDeadLettered: boolean;
  readonly throttlingAtMostOnePercent: boolean;
  readonly wallWithin15PercentOfIdeal: boolean;
}

export function paceGoals(r: PaceRunResult): PaceGoals {
  return {
    noneFailedLostOrDeadLettered: r.drained && r.failed === 0 && r.lost === 0 && r.deadLettered === 0,
    throttlingAtMostOnePercent: r.throttlingPercent <= 1,
    wallWithin15PercentOfIdeal: r.drained && r.wallToIdeal <= 1.15,
  };
}

/** Above this share of the machine busy, or this sender event-loop delay at p99, a run measured the machine. */
export const MACHINE_BUSY_LIMIT_PERCENT = 80;
export const EVENT_LOOP_DELAY_LIMIT_MS = 200;

/** Why this machine, not the design, may have set a run's figures (empty: it did not). */
export function machineLimits(r: Pick<PaceRunResult, 'cpu' | 'eventLoopDelayP99Ms'>): string[] {
  return [
    ...(r.cpu.machineBusyPercent >= MACHINE_BUSY_LIMIT_PERCENT ? [`machine ${r.cpu.machineBusyPercent}% busy (limit ${MACHINE_BUSY_LIMIT_PERCENT}%)`] : []),
    ...(r.eventLoopDelayP99Ms >= EVENT_LOOP_DELAY_LIMIT_MS ? [`sender event-loop delay p99 ${r.eventLoopDelayP99Ms} ms (limit ${EVENT_LOOP_DELAY_LIMIT_MS} ms)`] : []),
  ];
}
