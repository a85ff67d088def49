/**
 * `npm run bench:latency`: the latency scenario of `npm run bench` alone. Writes
 * bench/results/latency-throughput.{json,md}; `npm run bench` writes the same section into
 * results.json and results.md as well.
 */
import { join, resolve } from 'node:path';
import { runLatencyScenario } from './latency/latency-scenario';
import { formatLatencyText } from './latency/latency-report';
import { writeLatencyResults } from './latency/latency-results';
import { workloadOptions } from './workload-options';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const values = workloadOptions('bench:latency', { events: 1000, rounds: 4, seed: 42 });
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
