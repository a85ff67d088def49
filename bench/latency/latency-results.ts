import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLatencyMarkdown, latencyJson } from './latency-report';
import type { LatencyScenarioResult } from './latency-scenario';

/** Writes latency-throughput.json and .md into `folder`, whether the scenario ran alone or inside `npm run bench`. */
export function writeLatencyResults(folder: string, result: LatencyScenarioResult): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'latency-throughput.json'), `${JSON.stringify(latencyJson(result), null, 2)}\n`);
  writeFileSync(join(folder, 'latency-throughput.md'), `# Benchmark: latency scenario\n\n${formatLatencyMarkdown(result)}`);
}
