import type { SimulationReport } from '../local/simulation-report';

/**
 * One report standing for several runs of a sender on the same workload: counts summed,
 * throughput pooled (all acknowledgements over all busy time), latencies and wall time from the worst run.
 */
export function pool(reports: readonly SimulationReport[]): SimulationReport {
  const [first, ...rest] = reports;
  if (!first) throw new Error('no runs to pool');
  if (rest.length === 0) return first;
  const sum = (f: (r: SimulationReport) => number) => reports.reduce((n, r) => n + f(r), 0);
  const max = (f: (r: SimulationReport) => number) => Math.max(...reports.map(f));
  const states: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r.total.finalStates)) states[k] = (states[k] ?? 0) + v;
  const busyMs = sum((r) => r.throughput.busyMs);
  const acknowledged = sum((r) => r.throughput.acknowledged);
  const messages = sum((r) => r.workload.messages);
  const requests = sum((r) => r.dynamo.requests);
  return {
    ...first,
    workload: first.workload,
    total: {
      ...first.total,
      messages,
      providerCalls: sum((r) => r.total.providerCalls),
      duplicateCalls: sum((r) => r.total.duplicateCalls),
      resendAfterAmbiguity: sum((r) => r.total.resendAfterAmbiguity),
      unexplainedDuplicates: sum((r) => r.total.unexplainedDuplicates),
      lost: sum((r) => r.total.lost),
      parkedInDeadLetterQueue: sum((r) => r.total.parkedInDeadLetterQueue),
      suppressedDuplicates: sum((r) => r.total.suppressedDuplicates),
      takeovers: sum((r) => r.total.takeovers),
      smsIndexEntries: sum((r) => r.total.smsIndexEntries),
      finalStates: states,
    },
    throughput: {
      ...first.throughput,
      busyMs,
      acknowledged,
      wallMs: max((r) => r.throughput.wallMs),
      injectedPerSecond: Math.min(...reports.map((r) => r.throughput.injectedPerSecond)),
      eventsPerSecond: Math.round((acknowledged * 1000) / Math.max(1, busyMs)),
      messagesPerSecond: Math.round((messages * 1000) / Math.max(1, busyMs)),
    },
    latencyMs: { ...first.latencyMs, p50: max((r) => r.latencyMs.p50), p99: max((r) => r.latencyMs.p99) },
    dynamo: {
      ...first.dynamo,
      requests,
      reads: sum((r) => r.dynamo.reads),
      writes: sum((r) => r.dynamo.writes),
      conditionalFailures: sum((r) => r.dynamo.conditionalFailures),
      conditionalFailuresWithoutItem: sum((r) => r.dynamo.conditionalFailuresWithoutItem),
      capacityUnits: sum((r) => r.dynamo.capacityUnits),
      gsiWriteUnits: sum((r) => r.dynamo.gsiWriteUnits),
      responsesWithCapacity: sum((r) => r.dynamo.responsesWithCapacity),
      byOperation: sumByKey(reports.map((r) => r.dynamo.byOperation)),
      requestsPerMessage: Math.round((requests / Math.max(1, messages)) * 1000) / 1000,
    },
    invariants: {
      unexplainedDuplicates: sum((r) => r.invariants.unexplainedDuplicates),
      lost: sum((r) => r.invariants.lost),
      ok: reports.every((r) => r.invariants.ok),
    },
  };
}

/** Adds per-operation counts over rounds (every round's, not the first one's). */
function sumByKey(counts: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const c of counts) for (const [k, v] of Object.entries(c)) total[k] = (total[k] ?? 0) + v;
  return total;
}
