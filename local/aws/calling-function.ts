import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which of the stack's functions a piece of local work runs as. Local runs invoke every function in one process;
 * each invocation runs inside {@link runAsFunction}, so whatever AWS request it makes (at any depth, across
 * awaits and timers it starts) can be told apart from the run's own set-up and inspection requests, which run as
 * no function. The IAM check (test/iam/) reads it to hold each function's requests against that function's role.
 *
 * Names: `sender:<lane>` (`sender:urgent`, `sender:bulk`, `sender:single`), `reclaimer`, `status`, `outcomes`.
 */
const calling = new AsyncLocalStorage<string>();

/** Runs `work` as the function `name`. */
export function runAsFunction<T>(name: string, work: () => T): T {
  return calling.run(name, work);
}

/** `handler` with every call (and what it starts) run as the function `name`. */
export function asFunction<A extends unknown[], R>(name: string, handler: (...args: A) => R): (...args: A) => R {
  return (...args) => calling.run(name, () => handler(...args));
}

/** The function the current work runs as, if any. */
export function callingFunction(): string | undefined {
  return calling.getStore();
}
