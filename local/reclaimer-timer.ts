import type { ReclaimerRunSummary } from '../functions/reclaimer/create-reclaimer';
import { runAsFunction } from './aws/calling-function';
import { ExecutionEnvironment } from './execution-environment';
import type { SenderUnderTest, SimulationTiming } from './senders/sender-under-test';

/**
 * Runs a sender's reclaimer on a schedule, one run at a time, each in a fresh execution
 * environment with the function timeout (like the scheduled Lambda); a run killed by an
 * injected crash simply ends, leaving its rows to the next run.
 */
export class ReclaimerTimer {
  readonly runs: ReclaimerRunSummary[] = [];
  /** Runs that threw (an index query failed) or were killed; their rows wait for the next run. */
  failedRuns = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private count = 0;

  constructor(
    private readonly sender: Pick<SenderUnderTest, 'createReclaimer'>,
    private readonly timing: SimulationTiming,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (!this.sender.createReclaimer) return;
    this.timer = setInterval(() => {
      this.running ??= this.runOnce().finally(() => {
        this.running = undefined;
      });
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  async runOnce(): Promise<void> {
    if (!this.sender.createReclaimer) return;
    const env = new ExecutionEnvironment(`reclaimer.${this.count++}`);
    const timeout = setTimeout(() => env.kill('function-timeout'), this.timing.functionTimeoutMs);
    const summary = await Promise.race([
      runAsFunction('reclaimer', () => this.sender.createReclaimer!(env).run()).catch(() => undefined),
      env.killed.then(() => undefined),
    ]);
    clearTimeout(timeout);
    if (summary) this.runs.push(summary);
    else this.failedRuns += 1;
  }
}
