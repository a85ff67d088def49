import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The Node.js binary of the `node` devDependency: the major of the stack's default Lambda runtime (nodejs24.x). */
export const LAMBDA_NODE = join(dirname(require.resolve('node/package.json')), 'bin', 'node');

/** One module to import cold, with the environment its initialisation reads. */
export interface ColdImportTarget {
  readonly name: string;
  /** A bundled asset (ESM), in a directory with no node_modules above it, as in /var/task. */
  readonly file: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * The Node.js binary that imports it.
   * @default LAMBDA_NODE
   */
  readonly node?: string;
}

/** One cold import: elapsed time, and the CPU time the process spent on it (all its threads). */
export interface ColdImportRun {
  readonly wallMs: number;
  /** Less sensitive than wall time to other work on a shared machine, which only delays the process. */
  readonly cpuMs: number;
}

/**
 * Times `await import(asset)` in a fresh Node.js process per run (the target's `node`): parse, compile and the module's own
 * initialisation (Lambda's init phase without the runtime's bootstrap, which is the same for every
 * function). Runs are interleaved, each round in a rotated order, so machine drift hits every target
 * alike. Only `env` reaches the child: no credentials, every endpoint on loopback.
 *
 * @returns every run, per target name, in run order.
 */
export function timeColdImports(targets: readonly ColdImportTarget[], runs: number): Map<string, ColdImportRun[]> {
  const times = new Map<string, ColdImportRun[]>(targets.map((t) => [t.name, []]));
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

function timeOneImport(target: ColdImportTarget): ColdImportRun {
  // stdout and stderr first: Lambda's runtime has set them up (it logs) before it imports the handler, so
  // a logger that touches them at import must not be charged for it. exit(0) at once: a client's first
  // request (the sender's SES GetAccount) must not keep the process.
  const script =
    `process.stdout; process.stderr; const c = process.cpuUsage(); const t = performance.now(); ` +
    `await import(${JSON.stringify(pathToFileURL(target.file).href)}); ` +
    `const wall = performance.now() - t; const cpu = process.cpuUsage(c); ` +
    `process.stdout.write(JSON.stringify({ wallMs: wall, cpuMs: (cpu.user + cpu.system) / 1000 })); process.exit(0);`;
  const node = target.node ?? LAMBDA_NODE;
  const child = spawnSync(node, ['--input-type=module', '-e', script], {
    cwd: dirname(target.file),
    env: { ...target.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  let run: ColdImportRun | undefined;
  try {
    run = JSON.parse(child.stdout) as ColdImportRun;
  } catch {
    run = undefined;
  }
  if (child.status !== 0 || !run || !Number.isFinite(run.wallMs) || !Number.isFinite(run.cpuMs)) {
    throw new Error(`importing ${target.name} (${target.file}) under ${node} failed: ${child.stderr.split('\n').slice(0, 5).join(' ')}`);
  }
  return { wallMs: Math.round(run.wallMs * 10) / 10, cpuMs: Math.round(run.cpuMs * 10) / 10 };
}
