import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';

/** The options of a bench that runs a seeded workload in rounds. */
export interface WorkloadOptions {
  readonly events: number;
  readonly rounds: number;
  readonly seed: number;
  /** Where the results go. @default bench/results/ */
  readonly out?: string;
}

/** `--events N --rounds N --seed N --out DIR` of `npm run <command>`, or its usage and exit code 2. */
export function workloadOptions(command: string, defaults: { readonly events: number; readonly rounds: number; readonly seed: number }): WorkloadOptions {
  const usage = `usage: npm run ${command} -- [--events N] [--rounds N] [--seed N] [--out DIR]\n`;
  return commandLineOrExit(usage, () => {
    const { values } = parseCommandLine({
      options: {
        events: { type: 'string', default: String(defaults.events) },
        rounds: { type: 'string', default: String(defaults.rounds) },
        seed: { type: 'string', default: String(defaults.seed) },
        out: { type: 'string' },
      },
    });
    return {
      events: integerOption('events', values.events, { min: 1 }),
      rounds: integerOption('rounds', values.rounds, { min: 1, max: 100 }),
      seed: integerOption('seed', values.seed, { min: 0 }),
      ...(values.out === undefined ? {} : { out: values.out }),
    };
  });
}
