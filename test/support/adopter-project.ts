import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the adopter tests need to build a fresh app outside the repository: an adopter's shell environment, the
 * app's lockfile (this repository's resolved tree, so the install is offline), and the CDK versions to install.
 */

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const PACKAGE = 'idempotent-notifier';

export interface PackageJson {
  readonly name: string;
  readonly version?: string;
  readonly scripts?: Record<string, string>;
  readonly bin?: Record<string, string>;
  readonly engines?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

export const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The environment of an adopter's shell: nothing of this repository's npm run, on this process's Node. */
export function adopterEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value;
  const path = (env.PATH ?? '').split(':').filter((dir) => !dir.startsWith(REPO));
  return {
    ...env,
    PATH: [dirname(process.execPath), ...path].join(':'),
    CDK_DISABLE_VERSION_CHECK: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

export function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: adopterEnv(), timeout: 240_000 });
}

export function ok(result: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * The CDK an adopter's app brings, as peers of the package. `floor` is the lowest the package's peerDependencies
 * accept, held in this repository's lockfile as the aliases `aws-cdk-lib-floor` and `constructs-floor` so the
 * install stays offline; `newest` is the devDependency this repository builds with, pinned to the newest release
 * on the day of the last bump (`npm run check:cdk-newest` asks the registry whether it still is and names the
 * bump; raising it is a dependency update, which reruns the adopter test).
 */
export type CdkVersions = 'floor' | 'newest';

/** Lockfile alias of each peer at the floor. */
const FLOOR_ALIASES = { 'aws-cdk-lib': 'aws-cdk-lib-floor', constructs: 'constructs-floor' } as const;
export type CdkPeer = keyof typeof FLOOR_ALIASES;
export const CDK_PEERS = Object.keys(FLOOR_ALIASES) as CdkPeer[];

interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly [field: string]: unknown;
}
interface Lockfile {
  readonly packages: Record<string, LockEntry>;
  readonly [field: string]: unknown;
}

/** The version of `peer` the adopter's app installs for `versions`, as this repository's lockfile resolves it. */
export function cdkVersion(peer: CdkPeer, versions: CdkVersions): string {
  const lock = readJson<Lockfile>(join(REPO, 'package-lock.json'));
  const entry = lock.packages[`node_modules/${versions === 'floor' ? FLOOR_ALIASES[peer] : peer}`];
  if (!entry?.version) throw new Error(`package-lock.json has no ${peer} for ${versions}`);
  return entry.version;
}

/** `^2.275.0` -> `2.275.0`: the lowest version a caret or >= range admits. */
export function lowestOf(range: string): string {
  const match = /^(?:\^|>=\s*)?(\d+\.\d+\.\d+)$/.exec(range.trim());
  if (!match?.[1]) throw new Error(`peer range ${range} is not a caret or >= range of one version`);
  return match[1];
}

/**
 * The adopter project's lockfile: this repository's resolved tree under the project's own root entry. The
 * package itself has no entry, so npm reads the tarball as any install does (its manifest, its install scripts)
 * and finds every dependency it declares already resolved. For the floor, each CDK peer's entries (and what it
 * bundles) are the floor alias's, moved to the peer's own name.
 */
export function adopterLockfile(manifest: PackageJson & { version: string }, versions: CdkVersions): Lockfile {
  const lock = readJson<Lockfile>(join(REPO, 'package-lock.json'));
  const { '': _repository, ...resolved } = lock.packages;
  const packages: Record<string, LockEntry> = {};
  const aliases = Object.entries(FLOOR_ALIASES);
  for (const [path, entry] of Object.entries(resolved)) {
    const peer = aliases.find(([name]) => path === `node_modules/${name}` || path.startsWith(`node_modules/${name}/`));
    const alias = aliases.find(([, floor]) => path === `node_modules/${floor}` || path.startsWith(`node_modules/${floor}/`));
    if (alias) {
      if (versions === 'newest') continue;
      const [name, floor] = alias;
      const { name: _alias, ...rest } = entry;
      packages[`node_modules/${name}${path.slice(`node_modules/${floor}`.length)}`] = rest;
    } else if (!(peer && versions === 'floor')) {
      packages[path] = entry;
    }
  }
  return {
    ...lock,
    name: manifest.name,
    version: manifest.version,
    packages: {
      '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies },
      ...packages,
    },
  };
}

/**
 * npm's warnings in an install's output (`npm warn ...`, any case), one a line, less those about the machine's own
 * npm configuration (this one's ~/.npmrc sets `nodedir`, which npm 11+ calls an unknown user config): they come
 * from the shell, not from the package.
 */
export function npmWarnings(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /^npm warn/i.test(line.trim()))
    .filter((line) => !/Unknown (user|global|builtin|env) config/i.test(line));
}

/** The manifest of every package installed under `nodeModules`, nested ones and scoped ones too. */
export function installedManifests(nodeModules: string): PackageJson[] {
  const found: PackageJson[] = [];
  const visit = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (existsSync(manifest)) found.push(readJson<PackageJson>(manifest));
      visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found;
}
