import { expectedMaximum, lognormalMean, lognormalParameters, sumOfLognormals, type LatencyPercentiles } from './lognormal-latency';

/**
 * Messages per second one sender lane can deliver, as a function of its settings and the latencies it
 * waits on: the arithmetic of docs/scale.md, the synth-time check that a configuration can reach the rate
 * it is given (lib/scale-check.ts), and the prediction the scale simulation measures against
 * (bench/scale-simulation.ts) all call this one function.
 *
 * One message's critical path is its ledger round trips (claim, one per limit counter, outcome) and one
 * provider call, in sequence, plus its CPU. An invocation runs `batchSize` x `messagesPerRecord` messages
 * on `maxConcurrentSends` slots and lasts until the last one is done: with no more messages than slots,
 * the expected slowest of them; with more, the slots' average work plus the last wave's slowest.
 * An instance runs invocations back to back, at most at its CPU's pace and, under the send-rate
 * governor, at its share of the rate (under it when one message's path is longer than a send slot: an invocation's
 * paced sends are bracketed by its first message's claim and its last one's answer); a lane is `concurrency` instances.
 */

/** What one message waits on: a provider call and each ledger request. */
export interface MessageLatencies {
  readonly provider: LatencyPercentiles;
  readonly ledger: LatencyPercentiles;
}

/** A lane's settings and its workload, as the model takes them. */
export interface LaneThroughputInputs {
  /** Sender instances at once: the lane's event-source maximum concurrency. */
  readonly concurrency: number;
  /** SQS records per invocation (a backlog fills every batch). */
  readonly batchSize: number;
  /** Messages one record fans out to (recipients x channels). */
  readonly messagesPerRecord: number;
  /** Deliveries in flight at once in one invocation (`MAX_CONCURRENT_SENDS`). */
  readonly maxConcurrentSends: number;
  /** Ledger round trips on a message's critical path: claim, one per limit counter, outcome ({@link ledgerRequestsOnPath}). */
  readonly ledgerRequestsPerMessage: number;
  readonly latencies: MessageLatencies;
  /** CPU per message at one full vCPU, ms ({@link MEASURED_CPU_MS_PER_MESSAGE}). */
  readonly cpuMsPerMessage: number;
  /** Function memory, MB: Lambda gives one vCPU at 1,769 MB and a share in proportion below. */
  readonly memoryMb: number;
  /** Sends per second each instance may make under the send-rate governor. @default not paced */
  readonly sendRatePerInstance?: number;
  /** Between one invocation's end and the next one's start, ms. @default 0 */
  readonly invocationGapMs?: number;
  /** Fixed waits on each message's critical path besides its round trips (a local server's own time), ms. @default 0 */
  readonly otherMsPerMessage?: number;
}

/** What binds an instance: its waits, its CPU, or its share of the send rate. */
export type ThroughputBound = 'latency' | 'cpu' | 'send rate';

export interface LaneThroughput {
  readonly messagesPerSecond: number;
  readonly perInstance: {
    readonly messagesPerSecond: number;
    /** Messages per invocation over its expected duration. */
    readonly latencyBound: number;
    /** 1000 / CPU ms per message at the memory's vCPU share. */
    readonly cpuBound: number;
    /** Under the governor: messages per invocation over the longer of its slots and (messages - 1) slots plus one message's path; Infinity when not paced. */
    readonly rateBound: number;
  };
  /** Expected invocation duration, ms. */
  readonly invocationMs: number;
  readonly messagesPerInvocation: number;
  readonly binding: ThroughputBound;
}

/** Lambda gives a function one vCPU's worth of CPU at 1,769 MB, a proportional share below (AWS Lambda docs, memory). */
export const ONE_VCPU_MB = 1769;

/**
 * CPU per message of this sender at one vCPU, this machine's core taken as one vCPU: `npm run bench:latency`'s committed
 * run (bench/results/latency-throughput.json, 2026-12-06, 4 rounds of 1,000 queue messages, quiet machine), pooled:
 * 46.6 ms of CPU per invocation over 8.66 messages per invocation (messages, not queue records: 34.4 / 29.8 messages per
 * queue message x 4,000 queue messages / 533 invocations), 5.38 ms, rounded to 0.1 ms.
 * test/capacity-model/measured-cpu.test.ts derives it from that file and fails when a bench refresh moves it.
 * (The run of 2026-12-01 gave 29.8 ms over 8.56 messages, 3.5 ms, before the limit counters of issue 19 and later features;
 * Powertools' CPU in the same runs rose from 28.9 to 34.1 ms, so part of the rise is the machine and runtime.)
 */
export const MEASURED_CPU_MS_PER_MESSAGE = 5.4;

/**
 * The latencies the capacity model assumes on AWS, the same the latency bench injects (bench/latency/latency-model.ts):
 * a provider call median 60 ms, p99 400 ms (neither SES nor SNS publishes percentiles: an assumption), a DynamoDB request
 * median 5 ms, p99 25 ms (AWS: "single-digit millisecond"; the p99 an assumption).
 */
export const TYPICAL_LATENCIES: MessageLatencies = {
  provider: { label: 'provider call', medianMs: 60, p99Ms: 400 },
  ledger: { label: 'DynamoDB request', medianMs: 5, p99Ms: 25 },
};

/** Ledger round trips on a delivered message's critical path: claim, each limit counter (written one after another), outcome. */
export function ledgerRequestsOnPath(limitCounters: number): number {
  return 2 + limitCounters;
}

/** CPU ms per message at the memory's share of a vCPU (a Node process uses one vCPU at most: its event loop). */
export function cpuMsAtMemory(cpuMsPerMessage: number, memoryMb: number): number {
  return cpuMsPerMessage / Math.min(1, memoryMb / ONE_VCPU_MB);
}

/**
 * Expected time, ms, of `messages` deliveries of the given latency on `slots` slots, each started when a slot frees:
 * the slowest of them when they all fit; otherwise the average work per slot of all but the last wave, plus the
 * slowest of the last wave.
 */
export function expectedMakespanMs(latencies: MessageLatencies, ledgerRequests: number, messages: number, slots: number, otherMs = 0): number {
  const provider = lognormalParameters(latencies.provider);
  const ledger = lognormalParameters(latencies.ledger);
  const perMessage = sumOfLognormals([provider, ...Array.from({ length: ledgerRequests }, () => ledger)], otherMs);
  if (messages <= slots) return expectedMaximum(perMessage, messages);
  return ((messages - slots) / slots) * lognormalMean(perMessage) + expectedMaximum(perMessage, slots);
}

/** Messages per second of a lane under `inputs`, and what binds it. */
export function laneThroughput(inputs: LaneThroughputInputs): LaneThroughput {
  const problems = inputProblems(inputs);
  if (problems.length > 0) throw new RangeError(`lane throughput: ${problems.join('; ')}`);
  const messages = Math.max(1, Math.round(inputs.batchSize * inputs.messagesPerRecord));
  const cpuMs = cpuMsAtMemory(inputs.cpuMsPerMessage, inputs.memoryMb);
  const gapMs = inputs.invocationGapMs ?? 0;
  const otherMs = inputs.otherMsPerMessage ?? 0;
  // The waits, with each message's own CPU; the CPU of all of them serialised on the event loop is the other bound.
  const latencyMs = expectedMakespanMs(inputs.latencies, inputs.ledgerRequestsPerMessage, messages, inputs.maxConcurrentSends, otherMs) + cpuMs;
  // Paced, the sends of one invocation are 1/rate apart, and the process's next slot outlives the invocation, so a batch
  // takes at least messages/rate; its first send also waits for its claim and its last one's answer and outcome close
  // it, so at least (messages - 1) slots plus one message's whole path.
  const rate = inputs.sendRatePerInstance;
  const pathMs = expectedMakespanMs(inputs.latencies, inputs.ledgerRequestsPerMessage, 1, 1, otherMs) + cpuMs;
  const pacedMs = rate === undefined ? 0 : Math.max((messages * 1000) / rate, ((messages - 1) * 1000) / rate + pathMs);
  const invocationMs = Math.max(latencyMs, pacedMs, messages * cpuMs) + gapMs;
  const latencyBound = (1000 * messages) / (latencyMs + gapMs);
  const cpuBound = 1000 / cpuMs;
  const rateBound = rate === undefined ? Number.POSITIVE_INFINITY : (1000 * messages) / (pacedMs + gapMs);
  const perInstance = Math.min(latencyBound, cpuBound, rateBound);
  const binding: ThroughputBound = perInstance === rateBound ? 'send rate' : perInstance === cpuBound ? 'cpu' : 'latency';
  return {
    messagesPerSecond: perInstance * inputs.concurrency,
    perInstance: { messagesPerSecond: perInstance, latencyBound, cpuBound, rateBound },
    invocationMs,
    messagesPerInvocation: messages,
    binding,
  };
}

function inputProblems(i: LaneThroughputInputs): string[] {
  const problems: string[] = [];
  const whole = (name: string, n: number) => {
    if (!(Number.isInteger(n) && n >= 1)) problems.push(`${name} must be a whole number >= 1 (got ${n})`);
  };
  whole('concurrency', i.concurrency);
  whole('batchSize', i.batchSize);
  whole('maxConcurrentSends', i.maxConcurrentSends);
  whole('ledgerRequestsPerMessage', i.ledgerRequestsPerMessage);
  if (!(i.messagesPerRecord > 0)) problems.push(`messagesPerRecord must be positive (got ${i.messagesPerRecord})`);
  if (!((i.otherMsPerMessage ?? 0) >= 0)) problems.push(`otherMsPerMessage must be >= 0 (got ${i.otherMsPerMessage})`);
  if (!(i.cpuMsPerMessage >= 0)) problems.push(`cpuMsPerMessage must be >= 0 (got ${i.cpuMsPerMessage})`);
  if (!(i.memoryMb > 0)) problems.push(`memoryMb must be positive (got ${i.memoryMb})`);
  if (i.sendRatePerInstance !== undefined && !(i.sendRatePerInstance > 0)) problems.push(`sendRatePerInstance must be positive (got ${i.sendRatePerInstance})`);
  return problems;
}
