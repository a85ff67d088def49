import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTemplateFiles } from '../../functions/adapters/template-directory';
import { runLocal } from '../../local/local-runner';
import { docCodeBlocks, isConstructSnippet, snippetApp, type DocCodeBlock } from '../support/doc-code-blocks';
import {
  adopterEnv,
  adopterLockfile,
  CDK_PEERS,
  cdkVersion,
  installedManifests,
  lowestOf,
  npmWarnings,
  ok,
  PACKAGE,
  readJson,
  REPO,
  run,
  type CdkVersions,
  type PackageJson,
} from '../support/adopter-project';
import { loginCodeEvent } from '../support/events';
import { tempDir } from '../support/temp-dir';

/**
 * examples/adopter-app as an adopter builds it, step by step: this repository is built and packed with npm, a
 * fresh project outside the repository depends on the tarball, and a plain `npm install` of npm 12 (the `npm`
 * devDependency: the first npm that blocks every install script its project's `allowScripts` does not approve)
 * installs it with its dependencies, running whatever install scripts the package ships and the app approves. The app is then type-checked and
 * synthesized there with the CDK CLI, each handler bundled from the installed package, and the installed
 * `notifier` bin is run.
 *
 * The install is offline (no test leaves loopback): the project's lockfile pins every dependency at the version
 * this repository's lockfile has, so the tarballs `npm ci` put in npm's cache are all it needs. That is the one
 * departure from an adopter's first install, which resolves the same ranges against the registry.
 */

const EXAMPLE = join(REPO, 'examples', 'adopter-app');
/** The CDK each install has, for the titles: `aws-cdk-lib 2.278.0, constructs 10.8.1`. */
const cdkOf = (versions: CdkVersions): string => CDK_PEERS.map((peer) => `${peer} ${cdkVersion(peer, versions)}`).join(', ');
const NEWEST = cdkOf('newest');
const FLOOR = cdkOf('floor');
/** npm 12's command line, run on this process's Node (24: npm 12 needs ^22.22.2 or ^24.15.0). */
const NPM12 = join(REPO, 'node_modules', 'npm', 'bin', 'npm-cli.js');

interface PackResult {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/** The example's manifest depending on the packed tarball, with the CDK peers at `versions`. */
function adopterManifest(tarball: string, versions: CdkVersions): PackageJson & { version: string } {
  const example = readJson<PackageJson & { version: string }>(join(EXAMPLE, 'package.json'));
  const peers = Object.fromEntries(CDK_PEERS.map((peer) => [peer, cdkVersion(peer, versions)]));
  return { ...example, dependencies: { ...example.dependencies, ...peers, [PACKAGE]: `file:./${tarball}` } };
}

/** Writes the example app into `project` with the CDK peers at `versions` and installs it with npm 12, offline. */
function installAdopterApp(project: string, tarball: string, versions: CdkVersions): SpawnSyncReturns<string> {
  for (const file of ['app.ts', 'cdk.json', 'tsconfig.json']) copyFileSync(join(EXAMPLE, file), join(project, file));
  const manifest = adopterManifest(tarball, versions);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify(adopterLockfile(manifest, versions), null, 2)}\n`);
  return run(process.execPath, [NPM12, 'install', '--offline', '--no-audit', '--no-fund'], project);
}

/**
 * Synthesizes `file` as the CDK CLI runs an app (its output folder and context in the environment), without
 * bundling the handlers: the newest app's `cdk synth` proves the bundles; this proves the props and calls.
 */
function synthWithoutBundling(project: string, file: string, outdir: string, context: Record<string, unknown> = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: project,
    encoding: 'utf8',
    timeout: 240_000,
    env: {
      ...adopterEnv(),
      CDK_OUTDIR: join(project, outdir),
      CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }),
    },
  });
}

let project: string;
let packed: PackResult;
let install: SpawnSyncReturns<string>;
let typecheck: SpawnSyncReturns<string>;
let synth: SpawnSyncReturns<string>;
/** The construct snippets of README.md and docs/, each as a file of the adopter's app. */
const snippets: { block: DocCodeBlock; file: string; stack: string }[] = docCodeBlocks(REPO)
  .filter(isConstructSnippet)
  .map((block, i) => ({ block, file: `docs-snippet-${i + 1}.ts`, stack: `DocsSnippet${i + 1}` }));
let snippetTypecheck: SpawnSyncReturns<string>;
const snippetSynths = new Map<string, SpawnSyncReturns<string>>();

const bin = (name: string): string => join(project, 'node_modules', '.bin', name);

/** The same app with the CDK peers at the lowest versions the package's peerDependencies accept. */
let floorProject: string;
let floorInstall: SpawnSyncReturns<string>;
let floorTypecheck: SpawnSyncReturns<string>;
let floorSynth: SpawnSyncReturns<string>;
/** `npm publish --dry-run` of the built repository, as the owner would run it before publishing. */
let publishDryRun: SpawnSyncReturns<string>;

/** The example's cdk.json context, which the CDK CLI hands an app it runs. */
const exampleContext = (): Record<string, unknown> =>
  readJson<{ context: Record<string, unknown> }>(join(EXAMPLE, 'cdk.json')).context;

beforeAll(() => {
  project = tempDir('notifier-adopter-');
  floorProject = tempDir('notifier-adopter-floor-');
  ok(run('npm', ['run', 'build', '--silent'], REPO), 'npm run build');
  // The build just ran; --ignore-scripts only stops prepack from running it again.
  const pack = ok(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], REPO), 'npm pack');
  [packed] = JSON.parse(pack.stdout) as [PackResult];
  copyFileSync(join(project, packed.filename), join(floorProject, packed.filename));
  // --offline: nothing leaves loopback (npm says a real publish would need a login; that is all it may say).
  publishDryRun = run(process.execPath, [NPM12, 'publish', '--dry-run', '--json', '--ignore-scripts', '--offline'], REPO);

  install = installAdopterApp(project, packed.filename, 'newest');
  if (install.status !== 0) return;
  typecheck = run(bin('tsc'), ['-p', project], project);
  synth = run(bin('cdk'), ['synth', '--quiet', '--no-notices', '-o', 'cdk.out'], project);

  // The docs' construct snippets, pasted into the same app as a reader would, each type-checked and synthesized.
  for (const { block, file, stack } of snippets) writeFileSync(join(project, file), snippetApp(block, stack));
  const tsconfig = readJson<{ compilerOptions: object }>(join(project, 'tsconfig.json'));
  writeFileSync(join(project, 'tsconfig.docs.json'), JSON.stringify({ ...tsconfig, include: snippets.map((s) => s.file) }));
  snippetTypecheck = run(bin('tsc'), ['-p', join(project, 'tsconfig.docs.json')], project);
  for (const { file } of snippets) snippetSynths.set(file, synthWithoutBundling(project, file, `cdk.out.${file}`));

  floorInstall = installAdopterApp(floorProject, packed.filename, 'floor');
  if (floorInstall.status !== 0) return;
  floorTypecheck = run(join(floorProject, 'node_modules', '.bin', 'tsc'), ['-p', floorProject], floorProject);
  floorSynth = synthWithoutBundling(floorProject, 'app.ts', 'cdk.out', exampleContext());
}, 1_200_000);

describe('the package an adopter installs', () => {
  it('installs with a plain npm 12 install of the tarball, every install script in the tree reviewed by the app', () => {
    expect(spawnSync(process.execPath, [NPM12, '--version'], { encoding: 'utf8' }).stdout).toMatch(/^12\./);
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    expect(existsSync(join(project, 'node_modules', PACKAGE, 'dist', 'lib', 'index.js'))).toBe(true);
    // npm 12 lists every install script allowScripts leaves unreviewed; the example's allowScripts covers them all.
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(/not (yet )?covered by allowScripts/);
  });

  it('holds the compiled construct and CLI with their declarations, the handler sources and the templates', () => {
    const files = new Set(packed.files.map((f) => f.path));
    for (const file of [
      'package.json',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lib/notifier.js',
      'dist/cli/installed-notifier.js',
      'cli/notifier.mjs',
      'functions/sender/handler.ts',
      'functions/reclaimer/handler.ts',
      'functions/status/handler.ts',
    ]) {
      expect(files, file).toContain(file);
    }
    // Every template file and every translation (templates/<id>/<locale>.json), as the sender reads them.
    for (const { name } of readTemplateFiles(join(REPO, 'templates'))) expect(files).toContain(`templates/${name}`);
    // The outcome events' JSON Schema, for producers to generate bindings from (docs/outcome-events.md).
    expect(files).toContain('schemas/outcome-event.json');
    // Nothing else, apart from what npm always packs: package.json, the README and the `bin` launcher.
    const root = readJson<PackageJson>(join(REPO, 'package.json'));
    const alwaysPacked = new Set(['package.json', 'README.md', ...Object.values(root.bin ?? {})]);
    const shipped = /^(dist|functions|templates|schemas)\//;
    expect([...files].filter((f) => !shipped.test(f) && !alwaysPacked.has(f))).toEqual([]);
    // No TypeScript source of the CLI: the launcher would run it through tsx, which an adopter does not have.
    expect(files.has('cli/notifier.ts')).toBe(false);
  });

  it('runs no script of this repository in an adopter\'s install (they need files the package does not ship)', () => {
    const root = readJson<PackageJson>(join(REPO, 'package.json'));
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(root.scripts?.[hook], hook).toBeUndefined();
  });

  it('declares the dependencies the example uses, at the versions this repository tests', () => {
    const root = readJson<PackageJson>(join(REPO, 'package.json'));
    const example = readJson<PackageJson>(join(EXAMPLE, 'package.json'));
    const rootVersions = { ...root.dependencies, ...root.optionalDependencies, ...root.devDependencies };
    for (const [name, version] of Object.entries({ ...example.dependencies, ...example.devDependencies })) {
      if (name !== PACKAGE) expect(`${name}@${version}`).toBe(`${name}@${rootVersions[name]}`);
    }
  });
});

describe('the package\'s place in an adopter\'s app', () => {
  const root = readJson<PackageJson>(join(REPO, 'package.json'));

  it('takes aws-cdk-lib and constructs from the app (peers from the floor up), building this repository with the newest, pinned', () => {
    for (const peer of CDK_PEERS) {
      expect(root.dependencies?.[peer], `${peer} is the app's, not the package's`).toBeUndefined();
      const range = root.peerDependencies?.[peer] ?? '';
      expect(lowestOf(range), `${peer} ${range}: its floor is what the adopter test installs`).toBe(cdkVersion(peer, 'floor'));
      expect(root.devDependencies?.[peer]).toBe(cdkVersion(peer, 'newest'));
      expect(semver.satisfies(cdkVersion(peer, 'newest'), range)).toBe(true);
    }
  });

  it(`installs without one npm warning (peer, engine, deprecation) on a supported Node, with the newest CDK (${NEWEST}) and with the floor (${FLOOR})`, () => {
    expect(npmWarnings(`${install.stdout}\n${install.stderr}`)).toEqual([]);
    expect(npmWarnings(`${floorInstall.stdout}\n${floorInstall.stderr}`)).toEqual([]);
  });

  it('supports no Node that a package it installs refuses (engines), so no Node it supports sees EBADENGINE', () => {
    const ours = root.engines?.node ?? '*';
    const refusing: string[] = [];
    for (const dir of [project, floorProject]) {
      for (const manifest of installedManifests(join(dir, 'node_modules'))) {
        const theirs = manifest.engines?.node;
        if (theirs && semver.validRange(theirs) && !semver.subset(ours, theirs)) refusing.push(`${manifest.name}@${manifest.version}: ${theirs}`);
      }
    }
    expect([...new Set(refusing)], `package.json engines.node (${ours}) admits Nodes these refuse`).toEqual([]);
  });

  it('publishes cleanly (npm publish --dry-run): the CLI bin, the exports and their types in the tarball, no warning', () => {
    const output = `${publishDryRun.stdout}\n${publishDryRun.stderr}`;
    expect(publishDryRun.status, output).toBe(0);
    // The one warning a dry run gives without a login; the owner logs in to publish (README, "Publishing").
    expect(npmWarnings(output).filter((line) => !/requires you to be logged in/.test(line))).toEqual([]);
    const report = JSON.parse(publishDryRun.stdout) as PackResult | Record<string, PackResult>;
    const files = new Set(('files' in report ? (report as PackResult) : Object.values(report)[0])?.files.map((f) => f.path));
    const exported = readJson<{ exports: Record<string, { types?: string; default?: string } | string> }>(join(REPO, 'package.json')).exports;
    const targets = Object.values(exported).flatMap((target) => (typeof target === 'string' ? [target] : [target.types, target.default]));
    for (const target of [...targets, ...Object.values(root.bin ?? {})]) {
      if (target) expect(files, target).toContain(target.replace(/^\.\//, ''));
    }
  });
});

describe(`examples/adopter-app at the floor, the lowest CDK the peer ranges accept (${FLOOR})`, () => {
  it('installs the floor versions', () => {
    expect(floorInstall.status, `${floorInstall.stdout}\n${floorInstall.stderr}`).toBe(0);
    for (const peer of CDK_PEERS) {
      expect(readJson<PackageJson>(join(floorProject, 'node_modules', peer, 'package.json')).version).toBe(cdkVersion(peer, 'floor'));
    }
  });

  it('type-checks against the floor\'s declarations', () => {
    expect(floorTypecheck?.status, `${floorTypecheck?.stdout}\n${floorTypecheck?.stderr}`).toBe(0);
  });

  it('synthesizes the same resources as with the newest CDK', () => {
    expect(floorSynth?.status, `${floorSynth?.stdout}\n${floorSynth?.stderr}`).toBe(0);
    const resourcesOf = (dir: string): string[] =>
      Object.entries(readJson<{ Resources: Record<string, { Type: string }> }>(join(dir, 'cdk.out', 'ShopNotifications.template.json')).Resources)
        // The CLI adds CDKMetadata (version reporting); the floor's app runs without the CLI.
        .filter(([, r]) => r.Type !== 'AWS::CDK::Metadata')
        .map(([id, r]) => `${id} ${r.Type}`)
        .sort();
    expect(resourcesOf(floorProject)).toEqual(resourcesOf(project));
  });
});

describe(`examples/adopter-app with the newest CDK (${NEWEST}: the pins, the newest releases on the day of the last bump; npm run check:cdk-newest says whether they still are), depending on the installed package`, () => {
  it('installs the newest versions, and the CDK CLI this repository pins with them', () => {
    for (const peer of CDK_PEERS) {
      expect(readJson<PackageJson>(join(project, 'node_modules', peer, 'package.json')).version).toBe(cdkVersion(peer, 'newest'));
    }
    const root = readJson<PackageJson>(join(REPO, 'package.json'));
    expect(readJson<PackageJson>(join(project, 'node_modules', 'aws-cdk', 'package.json')).version).toBe(root.devDependencies?.['aws-cdk']);
  });

  it('type-checks against the packed declarations (NodeNext resolution, as a Node ESM app)', () => {
    expect(typecheck?.status, `${typecheck?.stdout}\n${typecheck?.stderr}`).toBe(0);
  });

  it('synthesizes with the CDK CLI, offline, each handler bundled from the installed package', () => {
    expect(synth?.status, `${synth?.stdout}\n${synth?.stderr}`).toBe(0);
    const template = readJson<{
      Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string }; Description?: string; Runtime?: string } }>;
    }>(join(project, 'cdk.out', 'ShopNotifications.template.json'));
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs24.x',
    );
    expect(functions.map((f) => f.Properties.Description).sort()).toEqual([
      'Idempotent notification delivery status: SES events and SNS SMS delivery logs -> ledger',
      'Idempotent notification fallback: ledger stream -> a request for the next channel on the sender queue',
      'Idempotent notification outcomes: ledger stream -> one event per state change on the event bus',
      'Idempotent notification reclaimer: resolves stale PENDING ledger rows',
      'Idempotent notification sender (bulk lane): SQS -> ledger claim -> SES/SNS',
      'Idempotent notification sender (urgent lane): SQS -> ledger claim -> SES/SNS',
    ]);
    for (const fn of functions) {
      const hash = fn.Properties.Code?.S3Key?.replace(/\.zip$/, '');
      const asset = join(project, 'cdk.out', `asset.${hash}`);
      expect(existsSync(join(asset, 'index.mjs')), asset).toBe(true);
      // index.mjs re-exports the handler from the one chunk a cold start reads (lib/bundle-child-process.ts).
      const assetBytes = readdirSync(asset).reduce((bytes, file) => bytes + statSync(join(asset, file)).size, 0);
      expect(assetBytes, asset).toBeGreaterThan(200_000);
    }
  });
});

describe('the construct snippets of README.md and docs/, pasted into an app that installed the tarball', () => {
  it('finds the deployment guide\'s snippets', () => {
    expect(snippets.map((s) => s.block.page)).toContain('docs/deployment.md');
  });

  it('type-checks every snippet against the packed declarations', () => {
    expect(snippetTypecheck?.status, `${snippetTypecheck?.stdout}\n${snippetTypecheck?.stderr}`).toBe(0);
  });

  it.each(snippets.map((s) => [`${s.block.page}:${s.block.line}`, s.file] as const))('synthesizes %s', (_where, file) => {
    const result = snippetSynths.get(file);
    expect(result?.status, `${result?.stdout}\n${result?.stderr}`).toBe(0);
    const stacks = readdirSync(join(project, `cdk.out.${file}`)).filter((f) => f.endsWith('.template.json'));
    expect(stacks.length).toBeGreaterThan(0);
  });
});

describe('the installed notifier CLI', () => {
  it('lists the commands an adopter can run', () => {
    const help = run(bin('notifier'), ['--help'], project);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stderr).toMatch(/ledger .*support look-up/);
    expect(help.stderr).toMatch(/templates .*check the template files/);
  });

  it('says where the simulator runs instead of failing on a missing dev dependency', () => {
    const simulate = run(bin('notifier'), ['simulate'], project);
    expect(simulate.status).toBe(2);
    expect(simulate.stderr).toMatch(/runs from a clone of the idempotent-notifier repository/);
  });

  it('checks the templates the package ships', () => {
    const check = run(bin('notifier'), ['templates', 'check'], project);
    expect(check.status, `${check.stdout}\n${check.stderr}`).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`\\d+ valid templates in ${join(project, 'node_modules', PACKAGE, 'templates')}`));
  });

  it('looks a message up in a local ledger, by event and by key', async () => {
    const dataDir = join(tempDir('notifier-adopter-ledger-'), 'ledger');
    const event = loginCodeEvent({ eventId: 'evt-adopter-lookup', occurredAt: new Date().toISOString() });
    await runLocal({ lines: [JSON.stringify(event)], dataDir, concurrency: 1, out: () => undefined, err: () => undefined });

    const byEvent = run(bin('notifier'), ['ledger', 'event', 'evt-adopter-lookup', '--local', dataDir], project);
    expect(byEvent.status, `${byEvent.stdout}\n${byEvent.stderr}`).toBe(0);
    expect(byEvent.stdout).toMatch(/SENT/);
    const key = /\b([0-9a-f]{64})\b/.exec(byEvent.stdout)?.[1];
    const byKey = run(bin('notifier'), ['ledger', 'show', key ?? 'none', '--local', dataDir, '--json'], project);
    expect(byKey.status, byKey.stderr).toBe(0);
    expect(JSON.parse(byKey.stdout)).toMatchObject({ state: 'SENT', eventId: 'evt-adopter-lookup' });
  }, 60_000);
});
