import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ratePerProcess, SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { NO_FAULTS } from '../../local/fault-plan';
import type { LocalDynamo } from '../../local/local-dynamo';
import { thisSender } from '../../local/senders/this-sender';
import { runSimulation } from '../../local/simulate';
import { round } from '../../local/stats';
import { DelayedProvider } from '../latency/delayed-provider';
import { addDynamoLatency } from '../latency/dynamo-latency';
import { InvocationMeter, type MeteredInvocation } from '../latency/invocation-meter';
import { LATENCY_TIMING } from '../latency/latency-scenario';
import { CpuSampler } from '../pace/cpu-sampler';
import { machineLimits } from '../pace/pace-result';
import { meterLedgerUnits } from './ledger-unit-meter';
import { TimedProvider, timeLedgerAttempts, type Overhead } from './local-overheads';
import { predict, type LocalCosts, type ScalePrediction } from './scale-prediction';
import type { ScaleSetting } from './scale-settings';
import { scaleWorkload } from './scale-workload';

/** What the machine was doing during a round. */
export interface MachineDuringRound {
  /** 1- and 5-minute load averages when the round started. */
  readonly loadAverage: readonly [number, number];
  readonly machineBusyPercent: number;
  readonly simulationCores: number;
  readonly dynaliteCores: number;
  readonly eventLoopDelayP99Ms: number;
  /** Why this machine, not the design, may have set the figures (bench/pace's rule); empty: the round counts. */
  readonly limits: readonly string[];
}

/** One round of one setting: the prediction beside the measurement. */
export interface ScaleRound {
  readonly setting: string;
  readonly round: number;
  readonly seed: number;
  readonly messages: number;
  readonly duplicates: number;
  readonly local: LocalCosts;
  readonly predicted: ScalePrediction;
  readonly measured: {
    /** Acknowledged queue records per second between the 10th and 90th percentile of acknowledgements. */
    readonly messagesPerSecond: number;
    readonly invocationMsMean: number;
    readonly writeUnitsPerMessage: number;
    readonly readUnitsPerMessage: number;
    readonly writeUnits: number;
    readonly readUnits: number;
    readonly lost: number;
    readonly unexplainedDuplicates: number;
    readonly redeliveries: number;
  };
  /** measured / predicted throughput. */
  readonly ratio: number;
  readonly machine: MachineDuringRound;
}

/** Runs one round of `setting` on `dynamo`, the real sender behind the local queue and event source. */
export async function runScaleRound(setting: ScaleSetting, roundIndex: number, seed: number, dynamo: LocalDynamo, messages: number): Promise<ScaleRound> {
  const duplicates = Math.round(messages * (setting.duplicateShare ?? 0));
  const workload = scaleWorkload({ kind: setting.kind, messages, duplicates, runTag: `${setting.id}-${seed}` });
  const meter = new InvocationMeter();
  let units: () => ReturnType<ReturnType<typeof meterLedgerUnits>> = () => ({ successfulWriteUnits: 0, failedConditionalWrites: 0, failedWithoutItem: 0, readUnits: 0, writeRequests: 0 });
  let ledgerOverhead: () => Overhead = () => ({ calls: 0, meanMs: 0 });
  let providerOverhead: () => Overhead = () => ({ calls: 0, meanMs: 0 });
  const governorPerEnvironment = setting.sendRatePerSecond
    ? () => new SendRateGovernor(ratePerProcess({ [setting.kind.channel]: setting.sendRatePerSecond }, setting.concurrency))
    : undefined;

  const loadAverage = loadavg();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const cpu = new CpuSampler();
  const cpuBefore = process.cpuUsage();
  cpu.start();
  loop.enable();
  const report = await runSimulation({
    events: workload.items.length,
    workload,
    rate: 1_000_000,
    concurrency: setting.concurrency,
    batchSize: setting.batchSize,
    sendsPerInvocation: setting.maxConcurrentSends,
    seed,
    faults: NO_FAULTS,
    timing: LATENCY_TIMING,
    dynamo,
    // No reclaimer run during the round: nothing goes stale, and its index queries are no message's units.
    reclaimIntervalMs: 3_600_000,
    senderFactory: (ports) => {
      units = meterLedgerUnits(ports.client);
      const injected = addDynamoLatency(ports.client, { ...setting.ledger, label: 'ledger', source: 'scale setting' }, seed);
      ledgerOverhead = timeLedgerAttempts(ports.client, injected);
      const latency = { ...setting.provider, label: 'provider', source: 'scale setting' };
      const provider = new TimedProvider(new DelayedProvider(ports.outbox, latency, seed, (key) => ports.plan.noteUnrecordedReach(key)), latency, seed);
      providerOverhead = () => provider.overhead();
      return meter.wrap(thisSender({ ...ports, outbox: provider }, undefined, { governorPerEnvironment }));
    },
  });
  loop.disable();
  cpu.stop();
  const cpuUsed = process.cpuUsage(cpuBefore);

  const records = workload.items.length;
  const cpuMsPerMessage = (cpuUsed.user + cpuUsed.system) / 1000 / Math.max(1, records);
  const local: LocalCosts = {
    ledgerOverheadMs: round(ledgerOverhead().meanMs, 2),
    providerOverheadMs: round(providerOverhead().meanMs, 2),
    cpuMsPerMessage: round(cpuMsPerMessage, 2),
  };
  const predicted = predict(setting, local, messages, duplicates);
  const tally = units();
  const writeUnits = tally.successfulWriteUnits + tally.failedConditionalWrites + report.dynamo.gsiWriteUnits;
  // dynalite returns no item with a failed condition; DynamoDB does, so the sender's follow-up read is not billed there.
  const readUnits = tally.readUnits - tally.failedWithoutItem;
  const measuredRate = steadyRate(meter.invocations);
  const usage = cpu.useUntil(Date.now());
  const eventLoopDelayP99Ms = round(loop.percentile(99) / 1e6, 1);
  const machine: MachineDuringRound = {
    loadAverage: [round(loadAverage[0] ?? 0, 2), round(loadAverage[1] ?? 0, 2)],
    machineBusyPercent: usage.machineBusyPercent,
    simulationCores: usage.benchProcessCores,
    dynaliteCores: round(Object.entries(usage.childCores).reduce((n, [name, cores]) => (name.includes('dynalite') ? n + cores : n), 0)),
    eventLoopDelayP99Ms,
    limits: machineLimits({ cpu: usage, eventLoopDelayP99Ms }),
  };
  return {
    setting: setting.id,
    round: roundIndex,
    seed,
    messages,
    duplicates,
    local,
    predicted,
    measured: {
      messagesPerSecond: round(measuredRate, 1),
      invocationMsMean: round(meter.invocations.reduce((n, i) => n + i.durationMs, 0) / Math.max(1, meter.invocations.length), 1),
      writeUnitsPerMessage: round(writeUnits / records, 3),
      readUnitsPerMessage: round(readUnits / records, 3),
      writeUnits,
      readUnits,
      lost: report.total.lost,
      unexplainedDuplicates: report.total.unexplainedDuplicates,
      redeliveries: report.queue.redeliveries,
    },
    ratio: round(measuredRate / predicted.messagesPerSecond, 3),
    machine,
  };
}

/**
 * Acknowledged records per second between the 10th and the 90th percentile of acknowledgements (by invocation end):
 * the instances' cold first batches and the drain's last, partly idle, wave left out.
 */
export function steadyRate(invocations: readonly Pick<MeteredInvocation, 'endedAtMs' | 'records' | 'failedRecords'>[]): number {
  const ends = [...invocations].sort((a, b) => a.endedAtMs - b.endedAtMs);
  const total = ends.reduce((n, i) => n + i.records - i.failedRecords, 0);
  let acked = 0;
  let from: { at: number; acked: number } | undefined;
  let to: { at: number; acked: number } | undefined;
  for (const i of ends) {
    acked += i.records - i.failedRecords;
    if (!from && acked >= 0.1 * total) from = { at: i.endedAtMs, acked };
    if (!to && acked >= 0.9 * total) to = { at: i.endedAtMs, acked };
  }
  if (!from || !to || to.at <= from.at) return 0;
  return ((to.acked - from.acked) * 1000) / (to.at - from.at);
}
