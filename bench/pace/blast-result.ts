import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { BlastScenarioOptions, EnqueuedCode } from './blast-options';
import type { RequestCountsByChannel } from './counting-provider';
import type { CpuUse } from './cpu-sampler';
import { machineLimits } from './pace-result';
import type { AcceptedSend } from './provider-services';
import { quantile, round } from '../../local/stats';

/** The figures of one blast run. Times in seconds. */
export interface BlastRunResult {
  readonly label: string;
  readonly lanes: boolean;
  readonly blast: number;
  readonly codes: number;
  readonly emailQuota: number;
  /** From enqueue to the local SES's acceptance, over every code accepted. */
  readonly codeLatency: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly codesAccepted: number;
  /** The local SES's own latency: the p99 round trip of an accepted send, as the sender saw it. */
  readonly providerLatencyP99: number;
  /**
   * While codes trickle in (from 5 s after the first poll to the last code's acceptance): the blast's
   * accepted e-mails per second, the codes', and the blast's as a fraction of the quota minus the codes'.
   */
  readonly window: { readonly seconds: number; readonly blastPerSecond: number; readonly codesPerSecond: number; readonly blastShareOfRest: number };
  /** Seconds from the first poll until the last blast e-mail was accepted, and that ÷ (blast ÷ quota). */
  readonly blastDrainSeconds: number;
  readonly blastDrainToIdeal: number;
  /** Provider requests and throttling answers per lane (`single` without lanes). */
  readonly requestsByLane: Readonly<Record<string, { readonly requests: number; readonly throttled: number }>>;
  readonly providerRequests: number;
  readonly throttlingResponses: number;
  readonly throttlingPercent: number;
  readonly sent: number;
  readonly failed: number;
  readonly unknown: number;
  readonly suppressed: number;
  readonly pending: number;
  readonly deadLettered: number;
  readonly deadLetterReasons: Readonly<Record<string, number>>;
  readonly lost: number;
  readonly stillQueued: number;
  readonly duplicateSends: number;
  readonly drained: boolean;
  readonly wallSeconds: number;
  readonly recordsBackedOff: number;
  readonly rateLimitedDeferrals: number;
  readonly cpu: CpuUse;
  readonly eventLoopDelayP99Ms: number;
  /** Why this machine, not the design, may have set the figures (empty: it did not). */
  readonly machineLimits: readonly string[];
  readonly senderWarnings: Readonly<Record<string, number>>;
  readonly laneSettings: readonly { readonly name: string; readonly maxConcurrency: number; readonly environment: Readonly<Record<string, string>> }[];
}

export interface BlastRunInputs {
  readonly options: BlastScenarioOptions;
  readonly blastKeys: ReadonlySet<string>;
  readonly codes: readonly EnqueuedCode[];
  readonly accepted: readonly AcceptedSend[];
  readonly rows: readonly LedgerRow[];
  readonly requests: Readonly<Record<string, RequestCountsByChannel>>;
  readonly metrics: InMemoryMetrics;
  readonly deadLetterReasons: readonly (string | undefined)[];
  readonly stillQueued: number;
  readonly drained: boolean;
  readonly drainStartedAt: number;
  readonly drainMs: number;
  readonly cpuUntil: (untilMs: number) => CpuUse;
  readonly senderWarnings: Readonly<Record<string, number>>;
  readonly eventLoopDelayP99Ms: number;
  /** Round trips of the accepted sends, ms. */
  readonly sentLatenciesMs: readonly number[];
  readonly lanes: BlastRunResult['laneSettings'];
}

const WINDOW_OPENS_AFTER_MS = 5_000;

/** Nearest rank, as local/stats.ts; no values is no figure (NaN), not 0 s. */
const quantileOrNaN = (values: readonly number[], q: number) => (values.length === 0 ? Number.NaN : quantile(values, q));

export function summariseBlastRun(input: BlastRunInputs): BlastRunResult {
  const { options } = input;
  const firstAccept = new Map<string, number>();
  const acceptsPerKey = new Map<string, number>();
  for (const { key, acceptedAt } of input.accepted) {
    acceptsPerKey.set(key, (acceptsPerKey.get(key) ?? 0) + 1);
    firstAccept.set(key, Math.min(firstAccept.get(key) ?? Number.POSITIVE_INFINITY, acceptedAt));
  }
  const latencies = input.codes
    .map((c) => (firstAccept.get(c.key) ?? Number.NaN) - c.enqueuedAt)
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  const codeKeys = new Set(input.codes.map((c) => c.key));

  const codeAccepts = input.codes.map((c) => firstAccept.get(c.key)).filter((t): t is number => t !== undefined);
  const windowStart = input.drainStartedAt + WINDOW_OPENS_AFTER_MS;
  const windowEnd = codeAccepts.length > 0 ? Math.max(...codeAccepts) : windowStart;
  const windowSeconds = Math.max(0, (windowEnd - windowStart) / 1000);
  const inWindow = (keys: ReadonlySet<string>) =>
    [...firstAccept].filter(([key, at]) => keys.has(key) && at >= windowStart && at <= windowEnd).length;
  const blastPerSecond = windowSeconds > 0 ? inWindow(input.blastKeys) / windowSeconds : 0;
  const codesPerSecond = windowSeconds > 0 ? inWindow(codeKeys) / windowSeconds : 0;
  const blastAccepts = [...firstAccept].filter(([key]) => input.blastKeys.has(key)).map(([, at]) => at);
  const blastDrainSeconds = blastAccepts.length > 0 ? (Math.max(...blastAccepts) - input.drainStartedAt) / 1000 : Number.NaN;

  const requestsByLane: Record<string, { requests: number; throttled: number }> = {};
  for (const [lane, byChannel] of Object.entries(input.requests)) {
    const counts = Object.values(byChannel);
    requestsByLane[lane] = {
      requests: counts.reduce((n, c) => n + (c?.requests ?? 0), 0),
      throttled: counts.reduce((n, c) => n + (c?.throttled ?? 0) + (c?.quotaExhausted ?? 0), 0),
    };
  }
  const providerRequests = Object.values(requestsByLane).reduce((n, l) => n + l.requests, 0);
  const throttlingResponses = Object.values(requestsByLane).reduce((n, l) => n + l.throttled, 0);

  const states = { SENT: 0, FAILED: 0, UNKNOWN: 0, SUPPRESSED: 0, PENDING: 0 };
  for (const row of input.rows) states[row.state] += 1;
  const sentNeverAccepted = input.rows.filter((r) => r.state === 'SENT' && !acceptsPerKey.has(r.key)).length;
  const deadLetterReasons: Record<string, number> = {};
  for (const reason of input.deadLetterReasons) {
    const name = reason ? `invalid event: ${reason}` : 'maxReceiveCount exceeded';
    deadLetterReasons[name] = (deadLetterReasons[name] ?? 0) + 1;
  }
  const expected = input.blastKeys.size + codeKeys.size;
  const accountedFor = states.SENT + states.FAILED + states.UNKNOWN + states.SUPPRESSED + input.deadLetterReasons.length + input.stillQueued;
  const cpu = input.cpuUntil(input.drainStartedAt + input.drainMs);
  const eventLoopDelayP99Ms = round(input.eventLoopDelayP99Ms, 1);
  const limits = machineLimits({ cpu, eventLoopDelayP99Ms });
  return {
    label: options.label,
    lanes: options.lanes,
    blast: input.blastKeys.size,
    codes: codeKeys.size,
    emailQuota: options.emailQuota,
    codeLatency: { p50: round(quantileOrNaN(latencies, 0.5) / 1000), p99: round(quantileOrNaN(latencies, 0.99) / 1000), max: round((latencies.at(-1) ?? Number.NaN) / 1000) },
    codesAccepted: latencies.length,
    providerLatencyP99: round(quantileOrNaN(input.sentLatenciesMs, 0.99) / 1000, 3),
    window: {
      seconds: round(windowSeconds, 1),
      blastPerSecond: round(blastPerSecond),
      codesPerSecond: round(codesPerSecond),
      blastShareOfRest: round(blastPerSecond / (options.emailQuota - codesPerSecond), 3),
    },
    blastDrainSeconds: round(blastDrainSeconds, 1),
    blastDrainToIdeal: round(blastDrainSeconds / (input.blastKeys.size / options.emailQuota), 3),
    requestsByLane,
    providerRequests,
    throttlingResponses,
    throttlingPercent: providerRequests > 0 ? round((100 * throttlingResponses) / providerRequests, 3) : 0,
    sent: states.SENT,
    failed: states.FAILED,
    unknown: states.UNKNOWN,
    suppressed: states.SUPPRESSED,
    pending: states.PENDING,
    deadLettered: input.deadLetterReasons.length,
    deadLetterReasons,
    lost: Math.max(0, expected - accountedFor) + sentNeverAccepted,
    stillQueued: input.stillQueued,
    duplicateSends: [...acceptsPerKey.values()].reduce((n, count) => n + count - 1, 0),
    drained: input.drained,
    wallSeconds: round(input.drainMs / 1000, 1),
    recordsBackedOff: input.metrics.get(METRIC.RecordBackedOff),
    rateLimitedDeferrals: input.metrics.get(METRIC.RateLimitedDeferral),
    cpu,
    eventLoopDelayP99Ms,
    machineLimits: limits,
    senderWarnings: input.senderWarnings,
    laneSettings: input.lanes,
  };
}

/** The goals for a lanes-on run. */
export interface BlastGoals {
  /** Login-code p99 within 2 s plus the local provider's own latency (its p99 round trip). */
  readonly codeP99WithinBudget: boolean;
  /** The blast gets at least 85% of the account rate the codes left. */
  readonly blastAtLeast85Percent: boolean;
  readonly noneFailedLostOrDeadLettered: boolean;
  /** The machine was not the limit (the run counts). */
  readonly machineNotTheLimit: boolean;
}

export function blastGoals(r: BlastRunResult): BlastGoals {
  return {
    codeP99WithinBudget: r.codesAccepted === r.codes && r.codeLatency.p99 <= 2 + r.providerLatencyP99,
    blastAtLeast85Percent: r.window.blastShareOfRest >= 0.85,
    noneFailedLostOrDeadLettered: r.drained && r.failed === 0 && r.lost === 0 && r.deadLettered === 0,
    machineNotTheLimit: r.machineLimits.length === 0,
  };
}
