import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The Node 22 binary of the `node` devDependency: the version of Lambda's nodejs22.x runtime. */
export const NODE22 = join(dirname(require.resolve('node/package.json')), 'bin', 'node');

/** One module to import cold, with the environment its initialisation reads. */
export interface ColdImportTarget {
  readonly name: string;
  /** A bundled asset (ESM), in a directory with no node_modules above it, as in /var/task. */
  readonly file: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Times `await import(asset)` in a fresh Node 22 process per run: parse, compile and the module's own
 * initialisation (Lambda's init phase without the runtime's bootstrap, which is the same for every
 * function). Runs are interleaved, each round in a rotated order, so machine drift hits every target
 * alike. Only `env` reaches the child: no credentials, every endpoint on loopback.
 *
 * @returns every run's milliseconds, per target name, in run order.
 */
export function timeColdImports(targets: readonly ColdImportTarget[], runs: number): Map<string, number[]> {
  const times = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  // One discarded round: the first process after a build pays for the page cache.
  for (const target of targets) timeOneImport(target);
  for (let round = 0; round < runs; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const target = targets[(i + round) % targets.length]!;
      times.get(target.name)!.push(timeOneImport(target));
    }
  }
  return times;
}

function timeOneImport(target: ColdImportTarget): number {
  // stdout and stderr first: Lambda's runtime has set them up (it logs) before it imports the handler, so
  // a logger that touches them at import must not be charged for it. exit(0) at once: a client's first
  // request (the sender's SES GetAccount) must not keep the process.
  const script = `process.stdout; process.stderr; const t = performance.now(); await import(${JSON.stringify(pathToFileURL(target.file).href)}); process.stdout.write(String(performance.now() - t)); process.exit(0);`;
  const child = spawnSync(NODE22, ['--input-type=module', '-e', script], {
    cwd: dirname(target.file),
    env: { ...target.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const ms = Number(child.stdout);
  if (child.status !== 0 || !Number.isFinite(ms) || child.stdout === '') {
    throw new Error(`importing ${target.name} (${target.file}) under ${NODE22} failed: ${child.stderr.split('\n').slice(0, 5).join(' ')}`);
  }
  return Math.round(ms * 10) / 10;
}
