import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The install-script policy (package.json `allowScripts`, kept with `npm install-scripts approve` / `deny`): npm 12
 * skips every script it does not cover, and `.ci/run` installs with `--strict-allow-scripts`, which fails on one.
 * Approvals are pinned to the locked version, so an upgrade is reviewed again; denials are by name.
 */
const read = <T>(path: string): T => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as T;
const manifest = read<{ allowScripts?: Record<string, boolean>; scripts?: Record<string, string> }>('package.json');
const lock = read<{ packages: Record<string, { version?: string; hasInstallScript?: boolean }> }>('package-lock.json');

const withScripts = Object.entries(lock.packages)
  .filter(([, entry]) => entry.hasInstallScript)
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version }));

describe('install scripts', () => {
  it('approves the node dev dependency pinned to its locked version: its preinstall brings the Lambdas\' Node to every npm script', () => {
    const node = withScripts.find((p) => p.name === 'node');
    expect(node?.version).toMatch(/^24\./);
    expect(manifest.allowScripts?.[`node@${node?.version}`]).toBe(true);
  });

  it('denies the scripts nothing needs: classic-level loads its prebuilt binary, esbuild\'s JS API finds its platform package', () => {
    expect(manifest.allowScripts?.['classic-level']).toBe(false);
    expect(manifest.allowScripts?.['esbuild']).toBe(false);
  });

  it('reviews every install script in the locked tree, and nothing that is not there', () => {
    const reviewed = (name: string, version: string | undefined) =>
      manifest.allowScripts?.[`${name}@${version}`] === true || manifest.allowScripts?.[name] === false;
    expect(withScripts.filter((p) => !reviewed(p.name, p.version))).toEqual([]);
    const names = new Set(withScripts.map((p) => p.name));
    expect(Object.keys(manifest.allowScripts ?? {}).filter((entry) => !names.has(entry.replace(/(?<=.)@[^@]+$/, '')))).toEqual([]);
  });

  it('keeps each package\'s registry address in the lock, which pinned approvals are matched against', () => {
    expect(readFileSync(new URL('../../.npmrc', import.meta.url), 'utf8')).toMatch(/^omit-lockfile-registry-resolved=false$/m);
    const node = lock.packages['node_modules/node'] as { resolved?: string } | undefined;
    expect(node?.resolved).toMatch(/^https:\/\/registry\.npmjs\.org\/node\/-\/node-24\.\d+\.\d+\.tgz$/);
  });
});
