/**
 * `npm run bench:latency`: the latency scenario of `npm run bench` alone. Writes
 * bench/results/latency-throughput.{json,md}; `npm run bench` writes the same section into
 * results.json and results.md as well.
 */
import { join, resolve } from 'node:path';
import { runLatencyScenario } from './latency/latency-scenario';
import { formatLatencyText } from './latency/latency-report';
import { writeLatencyResults } from './latency/latency-results';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const USAGE = 'usage: npm run bench:latency -- [--events N] [--rounds N] [--seed N] [--out DIR]\n';
const values = commandLineOrExit(USAGE, () => {
  const { values: raw } = parseCommandLine({
    options: {
      events: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '4' },
      seed: { type: 'string', default: '42' },
      out: { type: 'string' },
    },
  });
  return {
    events: integerOption('events', raw.events, { min: 1 }),
    rounds: integerOption('rounds', raw.rounds, { min: 1, max: 100 }),
    seed: integerOption('seed', raw.seed, { min: 0 }),
    out: raw.out,
  };
});
const results = resolve(values.out ?? join(import.meta.dirname, 'results'));
const started = Date.now();
const log = (line: string) => process.stderr.write(`[${Math.round((Date.now() - started) / 1000)} s] ${line}\n`);

const result = await runLatencyScenario({
  rounds: values.rounds,
  events: values.events,
  seed: values.seed,
  outboxDir: join(import.meta.dirname, '..', '.local-data', 'bench', 'latency'),
  log,
});
process.stdout.write(`\n${formatLatencyText(result)}\n\nscenario took ${Math.round((Date.now() - started) / 1000)} s\n`);
writeLatencyResults(results, result);
log(`results written to ${results}`);
