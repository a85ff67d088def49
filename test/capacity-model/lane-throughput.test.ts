import { describe, expect, it } from 'vitest';
import {
  cpuMsAtMemory,
  expectedMakespanMs,
  laneThroughput,
  ledgerRequestsOnPath,
  ONE_VCPU_MB,
  TYPICAL_LATENCIES,
  type LaneThroughputInputs,
} from '../../lib/capacity-model/lane-throughput';
import { expectedMaximum, lognormalMean, lognormalParameters, sumOfLognormals } from '../../lib/capacity-model/lognormal-latency';
import { mulberry32 } from '../../local/prng';

/** The stack's defaults, one instance, no CPU: latency alone. */
const BASE: LaneThroughputInputs = {
  concurrency: 1,
  batchSize: 10,
  messagesPerRecord: 1,
  maxConcurrentSends: 16,
  ledgerRequestsPerMessage: 3,
  latencies: TYPICAL_LATENCIES,
  cpuMsPerMessage: 0,
  memoryMb: ONE_VCPU_MB,
};

const PER_MESSAGE = sumOfLognormals([
  lognormalParameters(TYPICAL_LATENCIES.provider),
  ...Array.from({ length: 3 }, () => lognormalParameters(TYPICAL_LATENCIES.ledger)),
]);

/** Seeded list scheduling: `messages` jobs with lognormal times on `slots` slots, each job to the first free slot. */
function simulatedMakespan(messages: number, slots: number, seed: number): number {
  const random = mulberry32(seed);
  const draw = (p: { mu: number; sigma: number }) => Math.exp(p.mu + p.sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
  const provider = lognormalParameters(TYPICAL_LATENCIES.provider);
  const ledger = lognormalParameters(TYPICAL_LATENCIES.ledger);
  const free = Array.from({ length: slots }, () => 0);
  for (let m = 0; m < messages; m += 1) {
    const slot = free.indexOf(Math.min(...free));
    free[slot] = (free[slot] ?? 0) + draw(provider) + draw(ledger) + draw(ledger) + draw(ledger);
  }
  return Math.max(...free);
}

describe('lane throughput model', () => {
  it('an invocation with no more messages than slots lasts the expected slowest of them', () => {
    const r = laneThroughput(BASE);
    expect(r.messagesPerInvocation).toBe(10);
    expect(r.invocationMs).toBeCloseTo(expectedMaximum(PER_MESSAGE, 10), 6);
    expect(r.perInstance.latencyBound).toBeCloseTo(10_000 / expectedMaximum(PER_MESSAGE, 10), 6);
    expect(r.binding).toBe('latency');
  });

  it('with more messages than slots: the slots\' average work before the last wave plus its slowest, continuous at messages = slots', () => {
    expect(expectedMakespanMs(TYPICAL_LATENCIES, 3, 40, 8)).toBeCloseTo((32 / 8) * lognormalMean(PER_MESSAGE) + expectedMaximum(PER_MESSAGE, 8), 6);
    expect(expectedMakespanMs(TYPICAL_LATENCIES, 3, 16, 16)).toBeCloseTo(expectedMaximum(PER_MESSAGE, 16), 6);
  });

  it.each([
    [10, 16],
    [10, 4],
    [40, 8],
    [100, 16],
  ])('the makespan of %i messages on %i slots is within 8 percent of 4,000 seeded list schedules', (messages, slots) => {
    let total = 0;
    for (let seed = 1; seed <= 4000; seed += 1) total += simulatedMakespan(messages, slots, seed);
    const simulated = total / 4000;
    expect(Math.abs(expectedMakespanMs(TYPICAL_LATENCIES, 3, messages, slots) / simulated - 1)).toBeLessThan(0.08);
  });

  it('a lane is its instances: concurrency multiplies, and fans out per record add messages per invocation', () => {
    const one = laneThroughput(BASE);
    expect(laneThroughput({ ...BASE, concurrency: 7 }).messagesPerSecond).toBeCloseTo(7 * one.messagesPerSecond, 9);
    expect(laneThroughput({ ...BASE, messagesPerRecord: 1.5 }).messagesPerInvocation).toBe(15);
  });

  it('CPU adds to each message and binds when the memory\'s vCPU share is small', () => {
    expect(cpuMsAtMemory(3.5, ONE_VCPU_MB)).toBeCloseTo(3.5, 9);
    expect(cpuMsAtMemory(3.5, 512)).toBeCloseTo((3.5 * ONE_VCPU_MB) / 512, 9);
    // A Node process uses one vCPU at most: more memory than 1,769 MB gives it no more.
    expect(cpuMsAtMemory(3.5, 4096)).toBeCloseTo(3.5, 9);
    const withCpu = laneThroughput({ ...BASE, cpuMsPerMessage: 3.5, memoryMb: 512 });
    expect(withCpu.invocationMs).toBeCloseTo(expectedMaximum(PER_MESSAGE, 10) + cpuMsAtMemory(3.5, 512), 6);
    const starved = laneThroughput({ ...BASE, batchSize: 100, maxConcurrentSends: 50, cpuMsPerMessage: 3.5, memoryMb: 128 });
    expect(starved.binding).toBe('cpu');
    expect(starved.perInstance.messagesPerSecond).toBeCloseTo(1000 / cpuMsAtMemory(3.5, 128), 6);
  });

  it('the send-rate governor binds an instance at its share while a message\'s path is shorter than a slot', () => {
    const paced = laneThroughput({ ...BASE, concurrency: 4, sendRatePerInstance: 5 });
    expect(paced.binding).toBe('send rate');
    expect(paced.invocationMs).toBeCloseTo(2000, 6);
    expect(paced.messagesPerSecond).toBeCloseTo(20, 6);
    expect(laneThroughput({ ...BASE, sendRatePerInstance: 1000 }).binding).toBe('latency');
  });

  it('... and under it when the path is longer: 9 slot gaps, then the last message\'s whole path, per batch of 10', () => {
    const paced = laneThroughput({ ...BASE, sendRatePerInstance: 20 });
    const cycleMs = 9 * 50 + lognormalMean(PER_MESSAGE);
    expect(lognormalMean(PER_MESSAGE)).toBeGreaterThan(50);
    expect(paced.invocationMs).toBeCloseTo(cycleMs, 2);
    expect(paced.perInstance.messagesPerSecond).toBeCloseTo(10_000 / cycleMs, 3);
    expect(paced.binding).toBe('send rate');
  });

  it('counts the claim, each limit counter and the outcome on the critical path', () => {
    expect(ledgerRequestsOnPath(0)).toBe(2);
    expect(ledgerRequestsOnPath(3)).toBe(5);
    expect(laneThroughput({ ...BASE, ledgerRequestsPerMessage: 5 }).invocationMs).toBeGreaterThan(laneThroughput(BASE).invocationMs);
  });

  it('fails on settings it cannot model, naming each', () => {
    expect(() => laneThroughput({ ...BASE, concurrency: 0, batchSize: 2.5, memoryMb: 0, sendRatePerInstance: -1 })).toThrow(
      'lane throughput: concurrency must be a whole number >= 1 (got 0); batchSize must be a whole number >= 1 (got 2.5); memoryMb must be positive (got 0); sendRatePerInstance must be positive (got -1)',
    );
  });
});
