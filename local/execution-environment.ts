/** Why an execution environment died. */
export type KillReason = 'crash' | 'function-timeout';

/** A promise that never settles: what a call into a dead process looks like from outside. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/**
 * One simulated Lambda execution environment. When it is killed (an injected crash, or the
 * function timeout), every port call it makes from then on never returns, and calls already
 * in flight lose their answer: the invocation stops dead, like a killed process, and
 * whatever it had already written or sent stays done.
 */
export class ExecutionEnvironment {
  private killReason: KillReason | undefined;
  private onKill!: (reason: KillReason) => void;
  /** Resolves with the reason when the environment is killed. */
  readonly killed: Promise<KillReason>;

  constructor(readonly id: string) {
    this.killed = new Promise((resolve) => {
      this.onKill = resolve;
    });
  }

  get isDead(): boolean {
    return this.killReason !== undefined;
  }

  kill(reason: KillReason): void {
    if (this.killReason) return;
    this.killReason = reason;
    this.onKill(reason);
  }

  /** Kills the environment at an injected crash point and never returns. */
  crash<T>(): Promise<T> {
    this.kill('crash');
    return never<T>();
  }
}

/**
 * Wraps every method of a port so that it stops answering once `env` is dead.
 * Works for any port object (ledger, provider, persistence layer, dead-letter sink).
 */
export function bindToEnvironment<T extends object>(port: T, env: ExecutionEnvironment): T {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (env.isDead) return never();
        const result = method.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) => (env.isDead ? never() : answer),
          (error: unknown) => (env.isDead ? never() : Promise.reject(error)),
        );
      };
    },
  });
}
