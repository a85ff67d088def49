import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Thrown for a command line that cannot be run: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** node:util's parseArgs, with its own refusals (an unknown option, a missing value) as {@link UsageError}. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `raw` as a whole number within bounds, or a {@link UsageError} naming the option and the value given. */
export function integerOption(name: string, raw: string, bounds: { readonly min: number; readonly max?: number }): number {
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < bounds.min || n > max) {
    throw new UsageError(`--${name} must be a whole number ${bounds.max === undefined ? `of at least ${bounds.min}` : `from ${bounds.min} to ${max}`} (got "${raw}")`);
  }
  return n;
}

/**
 * Runs a command's main function and sets the exit code it returns. A {@link UsageError} is printed with the
 * usage text (exit 2), and an error in `expected` with its message alone (exit 1): neither as a stack trace.
 */
export async function runCommandLine(
  usage: string,
  main: () => Promise<number | void>,
  expected: ReadonlyArray<new (...args: never[]) => Error> = [],
): Promise<void> {
  try {
    process.exitCode = (await main()) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
    } else if (expected.some((type) => error instanceof type)) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = 1;
    } else {
      throw error;
    }
  }
}

/** `raw` as a number within bounds (fractions allowed), or a {@link UsageError} naming the option and the value given. */
export function numberOption(name: string, raw: string, bounds: { readonly above: number; readonly max: number }): number {
  const n = Number(raw);
  if (raw.trim() === '' || !(n > bounds.above && n <= bounds.max)) {
    throw new UsageError(`--${name} must be a number above ${bounds.above} and at most ${bounds.max} (got "${raw}")`);
  }
  return n;
}

/**
 * For a script whose work runs at its top level (the benches): the parsed command line, or, on a
 * {@link UsageError}, the message and the usage text on stderr and exit code 2.
 */
export function commandLineOrExit<T>(usage: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${usage}`);
    process.exit(2);
  }
}
