/** How a simulated crash shows itself: the process throws, or it is killed and never answers. */
export type CrashMode = 'throw' | 'hang';

export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

/**
 * Wraps `target` so the first call of `method` does its real work and then crashes:
 * it throws, or never settles (a killed invocation). Later calls pass through.
 */
export function crashAfterFirst<T extends object>(target: T, method: keyof T & string, mode: CrashMode): T {
  let crashed = false;
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(obj);
      if (prop !== method) return bound;
      return async (...args: unknown[]) => {
        const result = await bound(...args);
        if (crashed) return result;
        crashed = true;
        if (mode === 'throw') throw new SimulatedCrash(`crash after ${method}`);
        return new Promise(() => undefined);
      };
    },
  });
}

/** Resolves with the handler's answer, or 'killed' if it has not answered within `ms`. */
export async function invokeOrKill<T>(invocation: Promise<T>, ms = 300): Promise<T | 'killed'> {
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<'killed'>((resolve) => {
    timer = setTimeout(() => resolve('killed'), ms);
  });
  try {
    return await Promise.race([invocation, killed]);
  } finally {
    clearTimeout(timer);
  }
}
