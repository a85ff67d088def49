import { setTimeout as sleep } from 'node:timers/promises';
import { CpuSampler } from '../pace/cpu-sampler';

/** What the wait for a quiet machine saw. */
export interface QuietMachine {
  readonly busyPercent: number;
  readonly waitedMs: number;
}

/**
 * Waits until the whole machine (other work included) was under `busyBelowPercent` busy for a 2-second sample, or
 * `maxWaitMs` passed: this 2-core machine is shared, and a round started while it is saturated measures the machine.
 * The round's own machine check still decides whether it counts.
 */
export async function waitForQuietMachine(options: { readonly busyBelowPercent?: number; readonly maxWaitMs?: number; readonly log?: (line: string) => void } = {}): Promise<QuietMachine> {
  const limit = options.busyBelowPercent ?? 50;
  const maxWaitMs = options.maxWaitMs ?? 180_000;
  const started = Date.now();
  let noted = false;
  for (;;) {
    const sampler = new CpuSampler();
    sampler.start();
    await sleep(2_000);
    sampler.stop();
    const busyPercent = sampler.useUntil(Date.now()).machineBusyPercent;
    const waitedMs = Date.now() - started;
    if (busyPercent < limit || waitedMs >= maxWaitMs) return { busyPercent, waitedMs };
    if (!noted) options.log?.(`  machine ${busyPercent}% busy: waiting for under ${limit}% (at most ${Math.round(maxWaitMs / 1000)} s)`);
    noted = true;
    await sleep(3_000);
  }
}
