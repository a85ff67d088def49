import type { Scheduler } from 'fast-check';
import { vi } from 'vitest';

/**
 * Every await that crosses a port goes through a gate: a task the fast-check scheduler releases
 * in the order it chooses. Real I/O (the HTTP request to dynalite) happens between two gates,
 * outside the scheduler's sight, so the driver only lets the scheduler choose once that I/O has
 * finished, and hands it the waiting gates sorted by (actor, that actor's own count): the set and
 * order of choices is then a function of the earlier choices alone, whatever the socket timing,
 * and a failing schedule replays exactly.
 */
export class PortGates {
  private readonly arrivals: Arrival[] = [];
  private readonly perActor = new Map<string, number>();
  private readonly crashAt = new Map<string, number>();
  private readonly crashed = new Set<string>();
  private readonly running = new Set<string>();
  private readonly crashWaiters = new Map<string, (() => void)[]>();
  private inflight = 0;
  /** Crashes injected so far (at an await, or by Lambda's timeout). */
  crashes = 0;
  /** Of those, crashes at a chosen await. */
  crashesAtAwait = 0;
  private idleWaiters: (() => void)[] = [];
  /** Whether the gate that fires the next timer waits in the scheduler. */
  private timerGate = false;
  /** Labels of the gates in the order the scheduler released them: the schedule, for a report. */
  readonly released: string[] = [];

  constructor(private readonly scheduler: Scheduler) {}

  /** Waits for the scheduler to release `label`; never resolves once `actor` has crashed. */
  async pass(actor: string, label: string): Promise<void> {
    const seq = (this.perActor.get(actor) ?? 0) + 1;
    this.perActor.set(actor, seq);
    if (this.crashed.has(actor)) return never();
    await new Promise<void>((resolve) => this.arrivals.push({ actor, seq, label: `${actor}#${seq} ${label}`, resolve }));
    if (this.crashAt.get(actor) === seq && !this.crashed.has(actor)) {
      this.crashesAtAwait += 1;
      this.markCrashed(actor);
    }
    if (this.crashed.has(actor)) return never();
  }

  /** The actor dies when its `await`-th gate is released (the work before it is done, nothing after). */
  crashActorAt(actor: string, await_: number): void {
    this.crashAt.set(actor, await_);
  }

  /** Kills a running actor now (a Lambda timeout): its next gate never opens. */
  crash(actor: string): void {
    if (!this.running.has(actor) || this.crashed.has(actor)) return;
    this.markCrashed(actor);
  }

  /** Resolves when `actor` crashes. */
  whenCrashed(actor: string): Promise<void> {
    if (this.crashed.has(actor)) return Promise.resolve();
    return new Promise((resolve) => this.crashWaiters.set(actor, [...(this.crashWaiters.get(actor) ?? []), resolve]));
  }

  private markCrashed(actor: string): void {
    this.crashed.add(actor);
    this.crashes += 1;
    for (const wake of this.crashWaiters.get(actor) ?? []) wake();
    this.crashWaiters.delete(actor);
  }

  /** Started, not yet returned, not crashed. */
  isRunning(actor: string): boolean {
    return this.running.has(actor) && !this.crashed.has(actor);
  }

  isCrashed(actor: string): boolean {
    return this.crashed.has(actor);
  }

  /** Runs an actor's work; its promise settles when the work does, or never if it crashes. */
  start<T>(actor: string, work: () => Promise<T>): Promise<T> {
    this.running.add(actor);
    const done = work();
    void done.then(
      () => this.running.delete(actor),
      () => this.running.delete(actor),
    );
    return done;
  }

  /** Wraps real I/O, so the driver waits for it before the scheduler chooses again. */
  async io<T>(work: () => Promise<T>): Promise<T> {
    this.inflight += 1;
    try {
      return await work();
    } finally {
      this.inflight -= 1;
      if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Runs the system until nothing can move: the scheduler releases one gate at a time. An actor
   * waiting on a timer (an SDK retry back-off, an outcome write's pause: tens to hundreds of
   * milliseconds, as long as another actor's request) is woken by one more gate, "the next timer
   * fires", which the scheduler orders among the others; when no other gate waits, fake time fires it at once.
   */
  async drive(): Promise<void> {
    for (;;) {
      await this.quiesce();
      this.flushArrivals();
      if (this.scheduler.count() > 0) {
        if (!this.timerGate && this.liveActors() > 0 && vi.getTimerCount() > 0) {
          this.timerGate = true;
          void this.scheduler.schedule(Promise.resolve(TIMER_FIRES), TIMER_FIRES).then(() => {
            this.timerGate = false;
            this.released.push(TIMER_FIRES);
            if (vi.getTimerCount() > 0) vi.advanceTimersToNextTimer();
          });
        }
        await this.scheduler.waitNext(1);
        continue;
      }
      if (this.liveActors() > 0 && vi.getTimerCount() > 0) {
        vi.advanceTimersToNextTimer();
        continue;
      }
      return;
    }
  }

  liveActors(): number {
    return [...this.running].filter((actor) => !this.crashed.has(actor)).length;
  }

  private flushArrivals(): void {
    const ready = this.arrivals.splice(0).sort((a, b) => (a.actor === b.actor ? a.seq - b.seq : a.actor < b.actor ? -1 : 1));
    for (const arrival of ready) {
      void this.scheduler.schedule(Promise.resolve(arrival.label), arrival.label).then(() => {
        this.released.push(arrival.label);
        arrival.resolve();
      });
    }
  }

  /** Lets microtasks and real I/O run out, so every actor stands at a gate, on a timer, or is done. */
  private async quiesce(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.inflight > 0) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        continue;
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (this.inflight === 0) return;
    }
  }
}

const TIMER_FIRES = 'the next timer fires (an SDK back-off, a pause)';

interface Arrival {
  readonly actor: string;
  readonly seq: number;
  readonly label: string;
  readonly resolve: () => void;
}

function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}
