/**
 * `npm run bench`: this sender, the Powertools idempotency baseline and a naive check-then-insert
 * sender, side by side in one run, on the same seeded workload and the same injected faults,
 * against one dynalite on 127.0.0.1. Writes bench/results/{results.json,results.md,chart.svg}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { NO_FAULTS, type FaultRates } from '../local/fault-plan';
import { startLocalDynamo } from '../local/local-dynamo';
import { ProgressLine } from '../local/progress-line';
import type { SenderName } from '../local/senders/sender-under-test';
import { DEFAULT_CHAOS } from '../local/simulate-options';
import { runSimulation, type SimulationProgress } from '../local/simulate';
import { formatReport, type SimulationReport } from '../local/simulation-report';
import { markdownTable, textTable } from '../local/text-table';
import { bundleMarkdown, bundleText, measureBundles, type BundleMeasure } from './bundle-size';
import { renderChart } from './chart';
import { describeAssumptions, estimateCost, PRICES, type CostEstimate } from './cost-model';
import { probeRequests, type RequestProbe } from './cost-probe';
import { messageSizeFloors, messageSizeTable, probeMessageSizes, type MessageSizeProbe } from './message-size-probe';
import { pool } from './pool-rounds';
import { formatLatencyMarkdown, formatLatencyText, latencyJson } from './latency/latency-report';
import { writeLatencyResults } from './latency/latency-results';
import { runLatencyScenario } from './latency/latency-scenario';
import { workloadOptions } from './workload-options';
import { round } from '../local/stats';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const values = workloadOptions('bench', { events: 1500, rounds: 4, seed: 42 });
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));

const FAULTS: FaultRates = {
  ...NO_FAULTS,
  crashBeforeClaim: DEFAULT_CHAOS.crashRate,
  crashAfterClaim: DEFAULT_CHAOS.crashRate,
  crashAfterSend: DEFAULT_CHAOS.crashRate,
  crashAfterOutcome: DEFAULT_CHAOS.crashRate,
  providerTimeout: DEFAULT_CHAOS.providerTimeout,
  providerThrottle: DEFAULT_CHAOS.providerThrottle,
  providerReject: DEFAULT_CHAOS.providerReject,
  dynamoThrottle: DEFAULT_CHAOS.dynamoThrottle,
};
const WORKLOAD = {
  events: values.events,
  duplicateRate: 0.3,
  // Aimed above the floor so that timer lag on a loaded machine still leaves >= 1000/s injected.
  rate: 1100,
  concurrency: 16,
  batchSize: 10,
  sendsPerInvocation: 1,
  seed: values.seed,
  faults: FAULTS,
  maxReceiveCount: 5,
} as const;
/**
 * GSI write units DynamoDB would bill for a run (dynalite reports table units only), counted per
 * successful write request by local/gsi-write-model.ts. The baselines' tables have no GSI.
 */
function ledgerGsiUnits(r: SimulationReport): number {
  return r.dynamo.gsiWriteUnits;
}

const SENDERS: readonly { name: SenderName; label: string; short: string; gsiUnits: (r: SimulationReport) => number }[] = [
  { name: 'this-sender', label: 'this sender', short: 'this sender', gsiUnits: ledgerGsiUnits },
  { name: 'powertools', label: 'Powertools idempotency', short: 'Powertools', gsiUnits: () => 0 },
  { name: 'naive', label: 'naive check-then-insert', short: 'naive', gsiUnits: () => 0 },
];

const progress = new ProgressLine();
const log = (line: string) => progress.log(line);
// Only a terminal gets the live line; elsewhere the runs are left exactly as they were (no progress timer).
const onProgress = progress.interactive
  ? (p: SimulationProgress) =>
      progress.update({ done: p.acked, total: p.total, elapsedMs: p.elapsedMs, text: `acknowledged ${p.acked}, in queue ${p.inQueue}` })
  : undefined;
const started = Date.now();
const dynamo = await startLocalDynamo({ separateProcess: true });
const ROUNDS = values.rounds;
const WARM_UP_EVENTS = 300;
/** Every run of each sender, one per round; rounds rotate the order so drifting machine load hits all alike. */
const rounds: Record<string, SimulationReport[]> = {};
const runs: Record<string, SimulationReport> = {};
const probes: Record<string, RequestProbe> = {};
const costs: Record<string, CostEstimate> = {};
/** Write units per message of each sender's pooled run, table and index writes as DynamoDB bills them. */
const writeUnits: Record<string, number> = {};
let bundles: BundleMeasure[] = [];
let claimFirstProbe: RequestProbe | undefined;
let sizeProbe: MessageSizeProbe | undefined;
try {
  mkdirSync(join(RESULTS, '..', '..', '.local-data', 'bench'), { recursive: true });
  // Warm-up, discarded: the first run on a fresh dynalite and a cold JIT is slower whichever sender it is.
  for (const sender of SENDERS) {
    log(`[${secs()}] warm-up (not measured), ${sender.label}: ${WARM_UP_EVENTS} queue messages ...`);
    await runSimulation({ ...WORKLOAD, events: WARM_UP_EVENTS, sender: sender.name, dynamo, onProgress });
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotate the order each round so every sender takes every position (first, middle, last) alike.
    for (const sender of SENDERS.map((_, i) => SENDERS[(i + round) % SENDERS.length]!)) {
      log(`[${secs()}] round ${round + 1}/${ROUNDS}, ${sender.label}: ${WORKLOAD.events} queue messages at ${WORKLOAD.rate}/s, ${WORKLOAD.concurrency} concurrent invocations ...`);
      const r = await runSimulation({
        ...WORKLOAD,
        sender: sender.name,
        dynamo,
        onProgress,
        outboxFile: join(RESULTS, '..', '..', '.local-data', 'bench', `outbox-${sender.name}-${round + 1}.jsonl`),
      });
      (rounds[sender.name] ??= []).push(r);
      log(`[${secs()}]   ${r.throughput.eventsPerSecond} events/s, unexplained duplicates ${r.total.unexplainedDuplicates}, lost ${r.total.lost}`);
    }
  }
  for (const sender of SENDERS) runs[sender.name] = pool(rounds[sender.name] ?? []);
  for (const sender of SENDERS) {
    log(`[${secs()}] request probe: ${sender.label}`);
    probes[sender.name] = await probeRequests(sender.name, dynamo, 200);
  }
  log(`[${secs()}] request probe: this sender, claiming redeliveries without reading first`);
  claimFirstProbe = await probeRequests('this-sender', dynamo, 200, { readBeforeClaimOnRedelivery: false });
  log(`[${secs()}] message-size probe: an HTML order confirmation at about 2, 15 and 90 KB, each sender`);
  sizeProbe = await probeMessageSizes(dynamo);
} finally {
  await dynamo.stop();
}
log(`[${secs()}] latency scenario: provider and DynamoDB latency modelled, this sender vs Powertools BatchProcessor`);
const latency = await runLatencyScenario({ rounds: ROUNDS, seed: values.seed, outboxDir: join(RESULTS, '..', '..', '.local-data', 'bench', 'latency'), log: (line) => log(`[${secs()}] ${line}`) });
log(`[${secs()}] bundling each Lambda and the Powertools baseline, timing their cold imports (the node devDependency's Node.js)`);
bundles = await measureBundles();

for (const sender of SENDERS) {
  const r = runs[sender.name]!;
  const m = Math.max(1, r.total.messages);
  const d = r.dynamo;
  // On DynamoDB the item comes back with the failed condition: the follow-up GetItem disappears.
  const fallbackGets = d.conditionalFailuresWithoutItem / m;
  // Every write request, failed conditions included, bills its item's units (items here are under 1 KB).
  const writeUnitsPerMessage = d.writes / m + sender.gsiUnits(r) / m;
  writeUnits[sender.name] = writeUnitsPerMessage;
  costs[sender.name] = estimateCost({
    writeUnitsPerMessage,
    readUnitsPerMessage: d.reads / m - fallbackGets,
    dynamoRequestsPerMessage: d.requests / m - fallbackGets,
    providerCallsPerMessage: r.total.providerCalls / m,
  });
}

const ours = runs['this-sender']!;
const powertools = runs.powertools!;
const ratio = round(ours.throughput.eventsPerSecond / Math.max(1, powertools.throughput.eventsPerSecond), 2);
const probe = probes['this-sender']!;
const floors = [
  { floor: 'injected rate, events/s', required: '>= 1000', measured: String(ours.throughput.injectedPerSecond), met: ours.throughput.injectedPerSecond >= 1000 },
  {
    floor: 'duplicates in the injected stream',
    required: '>= 30%',
    measured: `${round((100 * ours.workload.duplicates) / ours.workload.injected, 1)}%`,
    met: ours.workload.duplicates / ours.workload.injected >= 0.3 - 1e-9,
  },
  { floor: 'concurrent workers (invocations)', required: '>= 16', measured: String(ours.settings.concurrency), met: ours.settings.concurrency >= 16 },
  {
    floor: 'duplicate provider calls outside resend-after-ambiguity',
    required: '0',
    measured: String(ours.total.unexplainedDuplicates),
    met: ours.total.unexplainedDuplicates === 0,
  },
  { floor: 'lost messages', required: '0', measured: String(ours.total.lost), met: ours.total.lost === 0 },
  { floor: 'DynamoDB write requests per delivered e-mail', required: '<= 2', measured: String(probe.delivered.writes), met: probe.delivered.writes <= 2 },
  {
    floor: 'DynamoDB write units per delivered e-mail, no fault (table + GSI)',
    required: '<= 2.0',
    measured: String(probe.delivered.capacityUnits + probe.delivered.gsiWriteUnits),
    met: probe.delivered.capacityUnits + probe.delivered.gsiWriteUnits <= 2,
  },
  {
    floor: 'DynamoDB write units per message, faulted workload (table + GSI)',
    required: "<= Powertools'",
    measured: `${round(writeUnits['this-sender'] ?? 0, 3)} vs ${round(writeUnits.powertools ?? 0, 3)}`,
    met: (writeUnits['this-sender'] ?? Infinity) <= (writeUnits.powertools ?? 0),
  },
  {
    floor: 'requests per suppressed duplicate (server returns the item)',
    required: '<= 1',
    measured: `${probe.suppressed.requestsOnAws} (dynalite, which does not return it: ${probe.suppressed.requestsOnDynalite})`,
    met: probe.suppressed.requestsOnAws <= 1,
  },
  {
    floor: 'throughput vs Powertools baseline, same run',
    required: '>= 1.0x',
    measured: `${ratio}x pooled (rounds: ${perRoundRatios().join(', ')})`,
    met: ratio >= 1,
  },
];

const cols = SENDERS.map((s) => s.label);
const cell = (f: (r: SimulationReport, p: RequestProbe, c: CostEstimate) => string | number) =>
  SENDERS.map((s) => f(runs[s.name]!, probes[s.name]!, costs[s.name]!));
const headline: (string | number)[][] = [
  ['duplicate provider calls, unexplained (all rounds)', ...cell((r) => r.total.unexplainedDuplicates)],
  ['duplicate provider calls, resend after ambiguity (otp)', ...cell((r) => r.total.resendAfterAmbiguity)],
  ['lost messages', ...cell((r) => r.total.lost)],
  ['parked in DLQ (redrive)', ...cell((r) => r.total.parkedInDeadLetterQueue)],
  ['final UNKNOWN (marketing gave up)', ...cell((r) => r.total.finalStates.UNKNOWN ?? 0)],
  ['throughput, events/s of busy time (pooled)', ...cell((r) => r.throughput.eventsPerSecond)],
  ['throughput vs Powertools', ...cell((r) => `${round(r.throughput.eventsPerSecond / Math.max(1, powertools.throughput.eventsPerSecond), 2)}x`)],
  ['wall time to settle the workload, s (slowest round)', ...cell((r) => round(r.throughput.wallMs / 1000, 1))],
  ['latency p50 / p99 ms, inject to ack (worst round)', ...cell((r) => `${r.latencyMs.p50} / ${r.latencyMs.p99}`)],
  ['DynamoDB requests per message (whole run)', ...cell((r) => r.dynamo.requestsPerMessage)],
  ['DynamoDB write units per message, table + GSI (whole run)', ...SENDERS.map((sd) => round(writeUnits[sd.name] ?? 0, 3))],
  ['DynamoDB writes per delivered message (probe)', ...cell((_, p) => p.delivered.writes)],
  ['requests per suppressed duplicate, dynalite / AWS', ...cell((_, p) => `${p.suppressed.requestsOnDynalite} / ${p.suppressed.requestsOnAws}`)],
  ['est. USD per million messages (DynamoDB + Lambda)', ...cell((_, __, c) => `${c.totalUsdPerMillion} (${c.dynamoUsdPerMillion} + ${c.lambdaUsdPerMillion})`)],
];
const perRound = Array.from({ length: ROUNDS }, (_, i) => {
  const ourRun = rounds['this-sender']?.[i];
  const theirs = rounds.powertools?.[i];
  return ourRun && theirs ? round(ourRun.throughput.eventsPerSecond / Math.max(1, theirs.throughput.eventsPerSecond), 2) : 0;
});
const roundsLine =
  `Throughput per round (events/s, this sender / Powertools / naive): ` +
  Array.from({ length: ROUNDS }, (_, i) => SENDERS.map((sd) => rounds[sd.name]?.[i]?.throughput.eventsPerSecond ?? 0).join(' / ')).join('; ') +
  `; ratio vs Powertools per round: ${perRound.map((r) => `${r}x`).join(', ')}. Rounds rotate the order after one discarded warm-up run of each sender; the machine is shared, so single rounds are noisy.`;
const floorRows = [...floors, ...(sizeProbe ? messageSizeFloors(sizeProbe) : [])].map((f) => [f.floor, f.required, f.measured, f.met ? 'yes' : 'NO']);
const sizeTable = sizeProbe ? messageSizeTable(sizeProbe) : undefined;
/** A redelivered message whose row is settled: read first (the default) against claiming at once. */
const redeliveryRows = [
  ['read first (default)', probe.redelivered],
  ['claim first', claimFirstProbe?.redelivered],
].flatMap(([label, r]) =>
  typeof label === 'string' && r && typeof r === 'object'
    ? [[label, r.requestsOnAws, r.writes, r.reads, `$${round(r.writes * PRICES.dynamoWriteRequestUnitPerMillion + r.reads * PRICES.dynamoReadRequestUnitPerMillion, 3)}`]]
    : [],
);
const redeliveryHeader = ['per redelivered, settled message (on DynamoDB)', 'requests', 'write units', 'read units', '$ per million'];
const environment = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; dynalite in a child process on 127.0.0.1; run order: ${SENDERS.map((s) => s.label).join(', ')}`;
const workloadLine =
  `${ROUNDS} rounds of ${ours.workload.injected} queue messages (${ours.workload.distinctEvents} events + ${ours.workload.duplicates} duplicates, ${ours.workload.messages} messages) ` +
  `injected at ${ours.throughput.injectedPerSecond}/s, ${WORKLOAD.concurrency} concurrent invocations x batch ${WORKLOAD.batchSize}, seed ${WORKLOAD.seed}; ` +
  `faults per opportunity: crashes ${FAULTS.crashBeforeClaim} at each of 4 points, provider timeouts ${FAULTS.providerTimeout}, throttling ${FAULTS.providerThrottle}, ` +
  `rejections ${FAULTS.providerReject}, DynamoDB throttling ${FAULTS.dynamoThrottle}`;

const text = [
  '',
  `workload: ${workloadLine}`,
  `machine: ${environment}`,
  '',
  textTable(['', ...cols], headline),
  roundsLine,
  '',
  textTable(['floor', 'required', 'measured', 'met'], floorRows),
  '',
  textTable(redeliveryHeader, redeliveryRows),
  '',
  ...(sizeTable ? ['DynamoDB write units per delivered e-mail, by message size (table + GSI)', textTable(sizeTable.header, sizeTable.rows), ''] : []),
  bundleText(bundles),
  '',
  formatLatencyText(latency),
  '',
  describeAssumptions(),
  '',
  `bench took ${secs()}`,
].join('\n');
process.stdout.write(`${text}\n`);

mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, 'results.json'),
  `${JSON.stringify(
    { workload: WORKLOAD, rounds: ROUNDS, environment, floors, pooled: runs, runs: rounds, probes, messageSizes: sizeProbe, costs, bundles, latencyThroughput: latencyJson(latency), assumptions: describeAssumptions() },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(RESULTS, 'chart.svg'),
  renderChart(
    SENDERS.map((s) => ({
      label: s.short,
      unexplainedDuplicates: runs[s.name]!.total.unexplainedDuplicates,
      resendAfterAmbiguity: runs[s.name]!.total.resendAfterAmbiguity,
      lost: runs[s.name]!.total.lost,
      eventsPerSecond: runs[s.name]!.throughput.eventsPerSecond,
    })),
    `Same workload and faults: ${ours.workload.injected} events at ${ours.throughput.injectedPerSecond}/s, 30% duplicates, 16 workers`,
  ),
);
writeFileSync(
  join(RESULTS, 'results.md'),
  [
    '# Benchmark: this sender vs Powertools idempotency vs naive check-then-insert',
    '',
    `Workload: ${workloadLine}.`,
    '',
    `Machine: ${environment}.`,
    '',
    markdownTable(['', ...cols], headline),
    '',
    roundsLine,
    '',
    '![duplicates, lost and throughput](chart.svg)',
    '',
    '## This sender, per message class (round 1)',
    '',
    '```text',
    formatReport(rounds['this-sender']?.[0] ?? ours),
    '```',
    '',
    '## Floors (issue 5)',
    '',
    markdownTable(['floor', 'required', 'measured', 'met'], floorRows),
    '',
    '## A redelivered message: read first, or claim at once',
    '',
    'The request probe delivers 200 one-message e-mail events, then receives each again as an SQS redelivery (receive count 2). The sender reads a redelivered message\'s row (strongly consistent, 1 read unit) before claiming; a claim that fails its condition costs a write unit. Counts as DynamoDB bills them (it returns the item with a failed condition; dynalite does not).',
    '',
    markdownTable(redeliveryHeader, redeliveryRows),
    '',
    '## Write units per delivered e-mail, by message size',
    '',
    'An HTML order confirmation (bench/fixtures/order-confirmation.ts) at about 2, 15 and 90 KB, 20 messages per cell, class `transactional` (one limited scope), no faults; write units only (a redelivery also reads its row first). The last-receive column is the path where the claim enters the pending index and keeps the message, packed, for the reclaimer.',
    '',
    ...(sizeTable ? [markdownTable(sizeTable.header, sizeTable.rows), ''] : []),
    '## Lambda bundles and cold start',
    '',
    bundleMarkdown(bundles),
    '',
    formatLatencyMarkdown(latency),
    '## Cost assumptions',
    '',
    ...describeAssumptions().split('\n').map((l) => `- ${l}`),
    '',
    '## How to read it',
    '',
    '- Duplicates are counted from each sender\'s outbox file (one line per provider call), not from any ledger.',
    '- "Resend after ambiguity" is the one duplicate the design allows: class `otp` resends when a call may have reached the provider and its answer was lost.',
    '- Lost = never reached the provider and not recorded as FAILED/UNKNOWN (for the baselines, which record no such state: not rejected and not unaddressable). Parked in DLQ = the record used up maxReceiveCount; a redrive finishes it.',
    '- Throughput counts queue messages acknowledged per second of busy time (at least one invocation running), so waits for visibility timeouts after crashes do not count; every sender runs one delivery at a time per invocation. Wall time to settle includes those waits (and this sender\'s refusal to start a delivery with less than send timeout + 2 s of the invocation left, which defers work to a redelivery under load).',
    '- All senders share one dynalite (in a child process) and this machine\'s two cores: absolute figures are a laptop\'s, only the ratios carry over. dynalite keeps GSIs inside each write (DynamoDB does it off the request path); the ledger\'s two keys-only GSIs are written only off the happy path, so this costs it little.',
    '',
  ].join('\n'),
);
writeLatencyResults(RESULTS, latency);
log(`results written to ${RESULTS}`);

function perRoundRatios(): string[] {
  return Array.from({ length: ROUNDS }, (_, i) => {
    const ourRun = rounds['this-sender']?.[i];
    const theirs = rounds.powertools?.[i];
    return ourRun && theirs ? `${round(ourRun.throughput.eventsPerSecond / Math.max(1, theirs.throughput.eventsPerSecond), 2)}x` : '-';
  });
}

function secs(): string {
  return `${Math.round((Date.now() - started) / 1000)} s`;
}
