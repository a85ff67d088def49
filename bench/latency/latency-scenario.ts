import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoRequestTotals } from '../../local/dynamo-request-counter';
import { NO_FAULTS } from '../../local/fault-plan';
import { startLocalDynamo, type LocalDynamo } from '../../local/local-dynamo';
import type { SenderName, SenderPorts, SenderUnderTest, SimulationTiming } from '../../local/senders/sender-under-test';
import { thisSender } from '../../local/senders/this-sender';
import { runSimulation } from '../../local/simulate';
import { DelayedProvider } from './delayed-provider';
import { addDynamoLatency, type DynamoLatencyTally } from './dynamo-latency';
import { InvocationMeter } from './invocation-meter';
import { billRun, type RunFigures, type RunMeasure } from './lambda-bill';
import { DYNAMO_LATENCY, PROVIDER_LATENCY, type LatencyDistribution } from './latency-model';
import { powertoolsBatchSender } from './powertools-batch-sender';
import { isBalanced, rotation, summariseRatios } from './round-ratios';

/** The stack's defaults (lib/notifier.ts): sender memory, SQS batch size, deliveries in flight per invocation. */
export const STACK_DEFAULTS = { memoryMb: 512, batchSize: 10, maxConcurrentSends: 16 } as const;

/**
 * The stack's timeouts scaled down like the main bench's, so a record that failed (two copies of
 * an event in one batch) comes back in seconds. The send timeout sits far in the provider
 * model's tail (P(> 3 s) is about 1e-6) and the function timeout leaves 4 s to start deliveries.
 */
export const LATENCY_TIMING: SimulationTiming = {
  functionTimeoutMs: 10_000,
  claimTimeoutMs: 10_500,
  sendTimeoutMs: 3_000,
  visibilityTimeoutMs: 11_000,
  retentionMs: 30 * 86_400_000,
};

export type LatencySenderId = 'this-sender' | 'powertools-batch';

interface SenderEntry {
  readonly id: LatencySenderId;
  readonly label: string;
  readonly reportName: SenderName;
  readonly build: (ports: SenderPorts) => SenderUnderTest;
}

export const LATENCY_SENDERS: readonly SenderEntry[] = [
  { id: 'this-sender', label: 'this sender', reportName: 'this-sender', build: (ports) => thisSender(ports) },
  { id: 'powertools-batch', label: 'Powertools BatchProcessor + idempotency', reportName: 'powertools', build: (ports) => powertoolsBatchSender(ports) },
];

export interface LatencyScenarioOptions {
  /** @default 4 (even, so both senders go first equally often) */
  readonly rounds?: number;
  /** Queue messages per run, 30% of them duplicates. @default 1000 */
  readonly events?: number;
  /** Round r uses seed + r for the workload and the latency draws. @default 42 */
  readonly seed?: number;
  /** @default PROVIDER_LATENCY */
  readonly providerLatency?: LatencyDistribution;
  /** @default DYNAMO_LATENCY */
  readonly dynamoLatency?: LatencyDistribution;
  /** Folder for the runs' outbox files. @default a temporary folder per run */
  readonly outboxDir?: string;
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
}

/** Whatever says a run did its job, beside the bill. */
export interface RunChecks {
  readonly unexplainedDuplicates: number;
  readonly lost: number;
  readonly suppressedDuplicates: number;
  readonly redeliveries: number;
  readonly providerCalls: number;
  readonly lostProviderAnswers: number;
  /** DynamoDB attempts the latency middleware delayed, against the requests the counter saw. */
  readonly dynamoAttemptsDelayed: number;
  readonly dynamoRequests: number;
  readonly timedOutInvocations: number;
  readonly wallMs: number;
}

export interface SenderRun {
  readonly sender: LatencySenderId;
  readonly round: number;
  readonly seed: number;
  readonly figures: RunFigures;
  readonly checks: RunChecks;
}

export interface RoundRatio {
  readonly round: number;
  readonly order: readonly LatencySenderId[];
  /** This sender's messages per second per instance over Powertools'. */
  readonly ratio: number;
  /** The same, with CPU at the memory size's share of a vCPU. */
  readonly ratioAtMemoryCpuShare: number;
}

export interface LatencyScenarioResult {
  readonly settings: {
    readonly rounds: number;
    readonly balanced: boolean;
    readonly events: number;
    readonly duplicateRate: number;
    readonly seed: number;
    readonly concurrency: number;
    readonly batchSize: number;
    readonly maxConcurrentSends: number;
    readonly memoryMb: number;
    readonly timing: SimulationTiming;
    readonly providerLatency: LatencyDistribution;
    readonly dynamoLatency: LatencyDistribution;
  };
  readonly runs: readonly SenderRun[];
  /** Every round of a sender billed as one run. */
  readonly pooled: Readonly<Record<LatencySenderId, RunFigures>>;
  readonly rounds: readonly RoundRatio[];
  readonly ratio: { readonly median: number; readonly min: number; readonly max: number };
  readonly ratioAtMemoryCpuShare: { readonly median: number; readonly min: number; readonly max: number };
}

const DUPLICATE_RATE = 0.3;
/** One execution environment: the per-instance rate is then its own, with no other invocation on this process's CPU. */
const CONCURRENCY = 1;
const WARM_UP_EVENTS = 200;

/**
 * Runs this sender and the Powertools batch baseline on the same seeded workload with the same
 * provider and DynamoDB latency model, rounds rotating the order, on a dynalite of its own.
 */
export async function runLatencyScenario(options: LatencyScenarioOptions = {}): Promise<LatencyScenarioResult> {
  const rounds = Math.max(1, options.rounds ?? 4);
  const events = options.events ?? 1000;
  const seed = options.seed ?? 42;
  const providerLatency = options.providerLatency ?? PROVIDER_LATENCY;
  const dynamoLatency = options.dynamoLatency ?? DYNAMO_LATENCY;
  const log = options.log ?? (() => undefined);
  if (options.outboxDir) mkdirSync(options.outboxDir, { recursive: true });

  const runOne = async (dynamo: LocalDynamo, entry: SenderEntry, runSeed: number, runEvents: number, duplicateRate: number, tag: string) => {
    const meter = new InvocationMeter();
    let tally: () => DynamoLatencyTally = () => ({ attempts: 0, totalMs: 0 });
    let provider: DelayedProvider | undefined;
    const report = await runSimulation({
      sender: entry.reportName,
      events: runEvents,
      duplicateRate,
      // Far above what one environment drains: batches are full from the start.
      rate: 2000,
      concurrency: CONCURRENCY,
      batchSize: STACK_DEFAULTS.batchSize,
      sendsPerInvocation: STACK_DEFAULTS.maxConcurrentSends,
      seed: runSeed,
      faults: NO_FAULTS,
      timing: LATENCY_TIMING,
      dynamo,
      outboxFile: options.outboxDir ? join(options.outboxDir, `outbox-${entry.id}-${tag}.jsonl`) : undefined,
      senderFactory: (ports) => {
        tally = addDynamoLatency(ports.client, dynamoLatency, runSeed);
        provider = new DelayedProvider(ports.outbox, providerLatency, runSeed, (key) => ports.plan.noteUnrecordedReach(key));
        return meter.wrap(entry.build({ ...ports, outbox: provider }));
      },
    });
    const measure: RunMeasure = {
      messages: report.workload.messages,
      queueMessages: report.workload.injected,
      invocations: meter.invocations,
      timedOutInvocations: report.throughput.timedOutInvocations,
      functionTimeoutMs: LATENCY_TIMING.functionTimeoutMs,
      memoryMb: STACK_DEFAULTS.memoryMb,
      dynamo: report.dynamo,
      // Only the sender's backoff of throttled records changes visibility; nothing throttles here.
      changeVisibilityRequests: 0,
    };
    const checks: RunChecks = {
      unexplainedDuplicates: report.total.unexplainedDuplicates,
      lost: report.total.lost,
      suppressedDuplicates: report.total.suppressedDuplicates,
      redeliveries: report.queue.redeliveries,
      providerCalls: report.total.providerCalls,
      lostProviderAnswers: provider?.lostAnswers ?? 0,
      dynamoAttemptsDelayed: tally().attempts,
      dynamoRequests: report.dynamo.requests,
      timedOutInvocations: report.throughput.timedOutInvocations,
      wallMs: report.throughput.wallMs,
    };
    return { measure, checks };
  };

  const measures = new Map<LatencySenderId, RunMeasure[]>();
  const runs: SenderRun[] = [];
  const ratios: RoundRatio[] = [];
  const dynamo = await startLocalDynamo({ separateProcess: true });
  try {
    // Discarded: the first run on a fresh dynalite and a cold JIT is slower whichever sender it is.
    for (const entry of LATENCY_SENDERS) {
      log(`latency warm-up (not measured), ${entry.label}: ${WARM_UP_EVENTS} queue messages`);
      await runOne(dynamo, entry, seed - 1, WARM_UP_EVENTS, 0, 'warm-up');
    }
    for (let r = 0; r < rounds; r += 1) {
      const order = rotation(LATENCY_SENDERS, r);
      const byId = new Map<LatencySenderId, RunFigures>();
      for (const entry of order) {
        log(`latency round ${r + 1}/${rounds}, ${entry.label}: ${events} queue messages, one execution environment`);
        const { measure, checks } = await runOne(dynamo, entry, seed + r, events, DUPLICATE_RATE, String(r + 1));
        const figures = billRun(measure);
        byId.set(entry.id, figures);
        (measures.get(entry.id) ?? measures.set(entry.id, []).get(entry.id)!).push(measure);
        runs.push({ sender: entry.id, round: r + 1, seed: seed + r, figures, checks });
        log(`  ${figures.messagesPerSecondPerInstance} messages/s per instance, invocation p50/p99 ${figures.invocationMs.p50}/${figures.invocationMs.p99} ms`);
      }
      const ours = byId.get('this-sender')!;
      const theirs = byId.get('powertools-batch')!;
      ratios.push({
        round: r + 1,
        order: order.map((e) => e.id),
        ratio: ours.messagesPerSecondPerInstance / theirs.messagesPerSecondPerInstance,
        ratioAtMemoryCpuShare: ours.atMemoryCpuShare.messagesPerSecondPerInstance / theirs.atMemoryCpuShare.messagesPerSecondPerInstance,
      });
    }
  } finally {
    await dynamo.stop();
  }
  const pool = (id: LatencySenderId) => billRun(poolMeasures(measures.get(id) ?? []));
  return {
    settings: {
      rounds,
      balanced: isBalanced(LATENCY_SENDERS.length, rounds),
      events,
      duplicateRate: DUPLICATE_RATE,
      seed,
      concurrency: CONCURRENCY,
      batchSize: STACK_DEFAULTS.batchSize,
      maxConcurrentSends: STACK_DEFAULTS.maxConcurrentSends,
      memoryMb: STACK_DEFAULTS.memoryMb,
      timing: LATENCY_TIMING,
      providerLatency,
      dynamoLatency,
    },
    runs,
    pooled: { 'this-sender': pool('this-sender'), 'powertools-batch': pool('powertools-batch') },
    rounds: ratios,
    ratio: summariseRatios(ratios.map((r) => r.ratio)),
    ratioAtMemoryCpuShare: summariseRatios(ratios.map((r) => r.ratioAtMemoryCpuShare)),
  };
}

/** Several runs of one sender as one bill: counts and invocations added up. */
function poolMeasures(list: readonly RunMeasure[]): RunMeasure {
  const [first] = list;
  if (!first) throw new RangeError('no runs to pool');
  const sum = (f: (m: RunMeasure) => number) => list.reduce((n, m) => n + f(m), 0);
  return {
    ...first,
    messages: sum((m) => m.messages),
    queueMessages: sum((m) => m.queueMessages),
    invocations: list.flatMap((m) => m.invocations),
    timedOutInvocations: sum((m) => m.timedOutInvocations),
    changeVisibilityRequests: sum((m) => m.changeVisibilityRequests),
    dynamo: sumTotals(list.map((m) => m.dynamo)),
  };
}

function sumTotals(list: readonly DynamoRequestTotals[]): DynamoRequestTotals {
  const sum = (f: (t: DynamoRequestTotals) => number) => list.reduce((n, t) => n + f(t), 0);
  const byOperation: Record<string, number> = {};
  for (const t of list) for (const [op, n] of Object.entries(t.byOperation)) byOperation[op] = (byOperation[op] ?? 0) + n;
  return {
    requests: sum((t) => t.requests),
    reads: sum((t) => t.reads),
    writes: sum((t) => t.writes),
    byOperation,
    conditionalFailures: sum((t) => t.conditionalFailures),
    conditionalFailuresWithoutItem: sum((t) => t.conditionalFailuresWithoutItem),
    capacityUnits: sum((t) => t.capacityUnits),
    responsesWithCapacity: sum((t) => t.responsesWithCapacity),
    gsiWriteUnits: sum((t) => t.gsiWriteUnits),
  };
}
