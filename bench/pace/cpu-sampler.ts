import { cpus } from 'node:os';
import { readChildCpu, type ChildCpu } from './child-cpu';
import { round } from '../../local/stats';

/** CPU readings at one moment. */
interface CpuSample {
  readonly atMs: number;
  /** This process, user + system, in ms. */
  readonly processMs: number;
  readonly children: ChildCpu;
  readonly machineBusy: number;
  readonly machineTotal: number;
}

/** Cores busy over a window: this process, each child by name, and the machine (all processes) as a percentage. */
export interface CpuUse {
  readonly benchProcessCores: number;
  readonly childCores: Readonly<Record<string, number>>;
  readonly machineBusyPercent: number;
}

/**
 * Samples CPU time every second so that the busy phase of a run (up to its last-but-few sends)
 * can be told from an idle tail of records waiting out a visibility timeout.
 */
export class CpuSampler {
  private readonly samples: CpuSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.samples.push(sample());
    this.timer = setInterval(() => this.samples.push(sample()), 1_000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.samples.push(sample());
  }

  /** Use between the first sample and the last one taken at or before `untilMs` (at least one second on). */
  useUntil(untilMs: number): CpuUse {
    const first = this.samples[0];
    const candidates = this.samples.filter((s) => s.atMs <= untilMs);
    const last = candidates.at(-1) === first ? this.samples[1] : candidates.at(-1);
    if (!first || !last || last.atMs <= first.atMs) return { benchProcessCores: 0, childCores: {}, machineBusyPercent: 0 };
    const seconds = (last.atMs - first.atMs) / 1000;
    const childCores: Record<string, number> = {};
    for (const [pid, { name, seconds: used }] of last.children) {
      childCores[name] = round((used - (first.children.get(pid)?.seconds ?? 0)) / seconds);
    }
    const total = last.machineTotal - first.machineTotal;
    return {
      benchProcessCores: round((last.processMs - first.processMs) / 1000 / seconds),
      childCores,
      machineBusyPercent: total > 0 ? Math.round((100 * (last.machineBusy - first.machineBusy)) / total) : 0,
    };
  }
}


function sample(): CpuSample {
  const usage = process.cpuUsage();
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    busy += all - times.idle;
    total += all;
  }
  return { atMs: Date.now(), processMs: (usage.user + usage.system) / 1000, children: readChildCpu(), machineBusy: busy, machineTotal: total };
}
