import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * examples/adopter-app as an adopter runs it: the package is built and packed with npm, the tarball unpacked
 * into a temporary project's node_modules (outside this repository), the dependencies an `npm install` would
 * add linked from this checkout's node_modules (no network), and the app type-checked and synthesized there
 * with the CDK CLI, bundling the three handlers with esbuild from the installed package.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(REPO, 'examples', 'adopter-app');
const PACKAGE = 'idempotent-notifier';

interface PackageJson {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

interface PackResult {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true', npm_config_update_notifier: 'false' },
    timeout: 240_000,
  });
}

function ok(result: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** `node_modules/<name>` of `project` as a link to this checkout's copy (what `npm install` would put there). */
function linkDependency(project: string, name: string): void {
  const target = join(project, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(REPO, 'node_modules', name), target, 'dir');
}

let project: string;
let packed: PackResult;
let typecheck: SpawnSyncReturns<string>;
let synth: SpawnSyncReturns<string>;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'notifier-adopter-'));
  ok(run('npm', ['run', 'build', '--silent'], REPO), 'npm run build');
  const pack = ok(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], REPO), 'npm pack');
  [packed] = JSON.parse(pack.stdout) as [PackResult];

  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  ok(run('tar', ['-xzf', join(project, packed.filename), '-C', modules], project), 'tar');
  renameSync(join(modules, 'package'), join(modules, PACKAGE));

  for (const file of ['app.ts', 'cdk.json', 'tsconfig.json', 'package.json']) copyFileSync(join(EXAMPLE, file), join(project, file));
  const example = readJson<PackageJson>(join(project, 'package.json'));
  const installed = readJson<PackageJson>(join(modules, PACKAGE, 'package.json'));
  const names = new Set([
    ...Object.keys(example.dependencies ?? {}),
    ...Object.keys(example.devDependencies ?? {}),
    ...Object.keys(installed.dependencies ?? {}),
  ]);
  names.delete(PACKAGE);
  for (const name of names) linkDependency(project, name);
  mkdirSync(join(modules, '.bin'));
  // NodejsFunction runs esbuild with `npx --no-install esbuild` from the package's folder.
  symlinkSync(join(REPO, 'node_modules', 'esbuild', 'bin', 'esbuild'), join(modules, '.bin', 'esbuild'));

  typecheck = run(process.execPath, [join(modules, 'typescript', 'bin', 'tsc'), '-p', project], project);
  synth = run(process.execPath, [join(modules, 'aws-cdk', 'bin', 'cdk'), 'synth', '--quiet', '--no-notices', '-o', 'cdk.out'], project);
}, 300_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the package an adopter installs', () => {
  it('holds the compiled construct with its declarations, the handler sources and the templates', () => {
    const files = new Set(packed.files.map((f) => f.path));
    for (const file of [
      'package.json',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lib/notifier.js',
      'functions/sender/handler.ts',
      'functions/reclaimer/handler.ts',
      'functions/status/handler.ts',
    ]) {
      expect(files, file).toContain(file);
    }
    const templates = join(REPO, 'templates');
    for (const template of existsSync(templates) ? readdirSync(templates) : []) expect(files).toContain(`templates/${template}`);
    // Nothing else, apart from what npm always packs: package.json, the README and the `bin` launchers.
    const root = readJson<PackageJson & { bin?: Record<string, string> }>(join(REPO, 'package.json'));
    const alwaysPacked = new Set(['package.json', 'README.md', ...Object.values(root.bin ?? {})]);
    const shipped = /^(dist|lib|functions|templates)\//;
    expect([...files].filter((f) => !shipped.test(f) && !alwaysPacked.has(f))).toEqual([]);
  });

  it('declares the dependencies the example links, at the versions this repository tests', () => {
    const root = readJson<PackageJson>(join(REPO, 'package.json'));
    const example = readJson<PackageJson>(join(EXAMPLE, 'package.json'));
    const rootVersions = { ...root.dependencies, ...root.devDependencies };
    for (const [name, version] of Object.entries({ ...example.dependencies, ...example.devDependencies })) {
      if (name !== PACKAGE) expect(`${name}@${version}`).toBe(`${name}@${rootVersions[name]}`);
    }
  });
});

describe('examples/adopter-app, depending on the installed package', () => {
  it('type-checks against the packed declarations (NodeNext resolution, as a Node ESM app)', () => {
    expect(typecheck.status, `${typecheck.stdout}\n${typecheck.stderr}`).toBe(0);
  });

  it('synthesizes with the CDK CLI, offline, each handler bundled from the installed package', () => {
    expect(synth.status, `${synth.stdout}\n${synth.stderr}`).toBe(0);
    const template = readJson<{
      Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string }; Description?: string; Runtime?: string } }>;
    }>(join(project, 'cdk.out', 'ShopNotifications.template.json'));
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs22.x',
    );
    expect(functions.map((f) => f.Properties.Description).sort()).toEqual([
      'Idempotent notification delivery status: SES events and SNS SMS delivery logs -> ledger',
      'Idempotent notification reclaimer: resolves stale PENDING ledger rows',
      'Idempotent notification sender: SQS -> ledger claim -> SES/SNS',
    ]);
    for (const fn of functions) {
      const hash = fn.Properties.Code?.S3Key?.replace(/\.zip$/, '');
      const bundle = join(project, 'cdk.out', `asset.${hash}`, 'index.mjs');
      expect(existsSync(bundle), bundle).toBe(true);
      expect(statSync(bundle).size).toBeGreaterThan(50_000);
    }
  });
});
