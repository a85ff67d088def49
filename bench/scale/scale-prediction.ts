import { laneThroughput, ledgerRequestsOnPath, MEASURED_CPU_MS_PER_MESSAGE, ONE_VCPU_MB, type LaneThroughput } from '../../lib/capacity-model/lane-throughput';
import { ledgerUnits, limitCounters } from '../../lib/capacity-model/ledger-capacity';
import { BUILT_IN_MESSAGE_CLASSES } from '../../functions/core/policy/message-class';
import type { ScaleSetting } from './scale-settings';

/** What this machine adds that AWS would not, measured in the round itself (not fitted to its throughput). */
export interface LocalCosts {
  /** What each DynamoDB request attempt took beyond its injected latency (dynalite, loopback, parsing, a late timer), ms. */
  readonly ledgerOverheadMs: number;
  /** What each provider call took beyond its injected latency (the outbox write, a late timer), ms. */
  readonly providerOverheadMs: number;
  /** This process's CPU per message during the round, ms (every simulated instance shares one event loop). */
  readonly cpuMsPerMessage: number;
}

/** The model's answer for a setting on this machine. */
export interface ScalePrediction {
  readonly messagesPerSecond: number;
  readonly binding: LaneThroughput['binding'] | 'this machine\'s one event loop';
  readonly invocationMs: number;
  /** Write and read units per message, averaged over the workload's paths. */
  readonly writeUnitsPerMessage: number;
  readonly readUnitsPerMessage: number;
  /** The same, per path. */
  readonly paths: readonly { readonly path: string; readonly messages: number; readonly writeUnits: number; readonly readUnits: number }[];
}

/** The class the built-in registry has under `name`. */
function builtIn(name: string) {
  const found = BUILT_IN_MESSAGE_CLASSES.find((c) => c.name === name);
  if (!found) throw new Error(`no built-in class ${name}`);
  return found;
}

/**
 * The capacity model (lib/capacity-model/lane-throughput.ts) fed the setting, its injected latencies and what this machine
 * adds: its time per ledger request and provider call beyond the injected latency, and the CPU per message, which here
 * all simulated instances share (one event loop; on Lambda each instance has its own CPU), so the lane is also bound by
 * 1000 / CPU ms per message as a whole.
 */
export function predict(setting: ScaleSetting, local: LocalCosts, originals: number, duplicates: number): ScalePrediction {
  const messageClass = builtIn(setting.kind.messageClass);
  const model = laneModel(setting, local);
  const oneLoop = local.cpuMsPerMessage > 0 ? 1000 / local.cpuMsPerMessage : Number.POSITIVE_INFINITY;
  const delivered = ledgerUnits('delivered', messageClass, setting.kind.channel);
  const duplicate = ledgerUnits('producer-duplicate', messageClass, setting.kind.channel);
  const paths = [
    { path: 'delivered', messages: originals, ...delivered },
    ...(duplicates > 0 ? [{ path: 'producer-duplicate', messages: duplicates, ...duplicate }] : []),
  ];
  const records = originals + duplicates;
  return {
    messagesPerSecond: Math.min(model.messagesPerSecond, oneLoop),
    binding: oneLoop < model.messagesPerSecond ? "this machine's one event loop" : model.binding,
    invocationMs: model.invocationMs,
    writeUnitsPerMessage: (originals * delivered.writeUnits + duplicates * duplicate.writeUnits) / records,
    readUnitsPerMessage: (originals * delivered.readUnits + duplicates * duplicate.readUnits) / records,
    paths,
  };
}

/** Costs to size a round before it has measured its own: 1 ms per ledger request, the latency bench's CPU per message. */
export const NOMINAL_COSTS: LocalCosts = { ledgerOverheadMs: 1, providerOverheadMs: 0, cpuMsPerMessage: MEASURED_CPU_MS_PER_MESSAGE };

/** The capacity model for `setting` on this machine's `local` costs (its lane, before the one-event-loop bound). */
export function laneModel(setting: ScaleSetting, local: LocalCosts): LaneThroughput {
  const ledgerRequests = ledgerRequestsOnPath(limitCounters(builtIn(setting.kind.messageClass), setting.kind.channel));
  return laneThroughput({
    concurrency: setting.concurrency,
    batchSize: setting.batchSize,
    messagesPerRecord: 1,
    maxConcurrentSends: setting.maxConcurrentSends,
    ledgerRequestsPerMessage: ledgerRequests,
    latencies: { provider: setting.provider, ledger: setting.ledger },
    cpuMsPerMessage: local.cpuMsPerMessage,
    memoryMb: ONE_VCPU_MB,
    otherMsPerMessage: ledgerRequests * local.ledgerOverheadMs + local.providerOverheadMs,
    ...(setting.sendRatePerSecond ? { sendRatePerInstance: setting.sendRatePerSecond / setting.concurrency } : {}),
  });
}
