/**
 * `npm run bench:bundles`: the bundle part of `npm run bench` alone (a minute, not the whole bench):
 * size and cold import of each Lambda beside the Powertools baseline. Writes bench/results/bundles.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleMarkdown, bundleText, measureBundles } from './bundle-size';
import { NODE22 } from './cold-import';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, out: { type: 'string' } } });
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));
const runs = Math.max(1, Number(values.runs));

const load = loadavg()[0]?.toFixed(1);
const bundles = await measureBundles(runs);
const node22 = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim();
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${load} when it started; cold imports under Node ${node22}`;
process.stdout.write(`${bundleText(bundles)}\nmachine: ${machine}\n`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'bundles.json'), `${JSON.stringify({ machine, runs, bundles }, null, 2)}\n`);
writeFileSync(join(RESULTS, 'bundles.md'), `# Lambda bundles and cold start\n\nMachine: ${machine}.\n\n${bundleMarkdown(bundles)}\n`);
