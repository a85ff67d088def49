import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { quantile } from '../local/stats';

/** One Lambda's deployable bundle. */
export interface BundleMeasure {
  readonly name: string;
  readonly entry: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Module initialisation (import of the bundle) in a fresh `node` process, median of the runs. */
  readonly initMs: number;
  readonly initRunsMs: readonly number[];
  /** Largest contributors to the bundle, by package (minified bytes attributed by esbuild). */
  readonly largestPackages: ReadonlyArray<{ readonly name: string; readonly bytes: number }>;
}

const REPO = resolve(import.meta.dirname, '..');
const OUT_DIR = join(REPO, '.local-data', 'bench-bundles');

/** The Lambda entry points of this repository that exist. */
export const LAMBDA_ENTRIES = [
  { name: 'sender', entry: 'functions/sender/handler.ts' },
  { name: 'reclaimer', entry: 'functions/reclaimer/handler.ts' },
  { name: 'status', entry: 'functions/status/handler.ts' },
].filter((e) => existsSync(join(REPO, e.entry)));

/**
 * The environment the handlers read at cold start, all loopback or dummy: nothing is called
 * during initialisation, and nothing could reach AWS if it were.
 */
const INIT_ENV = {
  LEDGER_TABLE_NAME: 'bench-ledger',
  FUNCTION_TIMEOUT_SECONDS: '30',
  CLAIM_TIMEOUT_SECONDS: '60',
  SEND_TIMEOUT_MS: '10000',
  DELIVERY_MODE: 'outbox',
  OUTBOX_FILE: join(OUT_DIR, 'init-outbox.jsonl'),
  DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:9/000000000000/bench-dlq',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_METRICS_DISABLED: 'true',
};

/**
 * Bundles each Lambda as the CDK stack does (esbuild, minified ESM, AWS SDK external as on the
 * Lambda runtime) and times importing it in fresh `node` processes.
 */
export async function measureBundles(runs = 5): Promise<BundleMeasure[]> {
  mkdirSync(OUT_DIR, { recursive: true });
  const results: BundleMeasure[] = [];
  for (const { name, entry } of LAMBDA_ENTRIES) {
    const build = await esbuild.build({
      entryPoints: [join(REPO, entry)],
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      external: ['@aws-sdk/*'],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const output = build.outputFiles[0];
    if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
    // Inside the repository, so the external @aws-sdk/* resolve from node_modules as from the runtime's.
    const file = join(OUT_DIR, `${name}.mjs`);
    writeFileSync(file, output.contents);
    const initRunsMs = Array.from({ length: runs }, () => timeImport(file));
    const byPackage = new Map<string, number>();
    for (const out of Object.values(build.metafile.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
        const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
        const pkg = match?.[1] ?? '(this repository)';
        byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
      }
    }
    results.push({
      name,
      entry,
      bytes: output.contents.byteLength,
      gzipBytes: gzipSync(output.contents).byteLength,
      initMs: Math.round(quantile(initRunsMs, 0.5) * 10) / 10,
      initRunsMs,
      largestPackages: [...byPackage.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([pkgName, bytes]) => ({ name: pkgName, bytes })),
    });
  }
  return results;
}

function timeImport(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...INIT_ENV },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const ms = Number(child.stdout);
  if (child.status !== 0 || !Number.isFinite(ms)) {
    throw new Error(`importing ${file} failed: ${child.stderr.split('\n').slice(0, 5).join(' ')}`);
  }
  return Math.round(ms * 10) / 10;
}
