/**
 * `npm run bench:bundles`: the bundle part of `npm run bench` alone (a minute, not the whole bench):
 * size and cold import of each Lambda beside the Powertools baseline. Writes bench/results/bundles.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleMarkdown, bundleText, measureBundles } from './bundle-size';
import { LAMBDA_NODE } from './cold-import';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';

const USAGE = 'usage: npx tsx bench/bundles.ts [--runs N] [--out DIR]\n';
const values = commandLineOrExit(USAGE, () => {
  const { values: raw } = parseCommandLine({ options: { runs: { type: 'string', default: '15' }, out: { type: 'string' } } });
  return { runs: integerOption('runs', raw.runs, { min: 1, max: 1000 }), out: raw.out };
});
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));
const runs = values.runs;

const load = loadavg()[0]?.toFixed(1);
const bundles = await measureBundles(runs);
const lambdaNode = spawnSync(LAMBDA_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${load} when it started; cold imports under Node ${lambdaNode}`;
process.stdout.write(`${bundleText(bundles)}\nmachine: ${machine}\n`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'bundles.json'), `${JSON.stringify({ machine, runs, bundles }, null, 2)}\n`);
writeFileSync(join(RESULTS, 'bundles.md'), `# Lambda bundles and cold start\n\nMachine: ${machine}.\n\n${bundleMarkdown(bundles)}\n`);
