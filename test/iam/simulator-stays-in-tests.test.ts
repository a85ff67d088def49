import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The IAM simulator is AGPL-3.0 and acceptable only as a test tool that never ships (docs/iam-check.md): a
 * devDependency, imported by no file a bundle or the published package holds.
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHIPPED = ['functions', 'lib', 'cli', 'local', 'bin', 'templates', 'schemas'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(m?[jt]s|json)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the IAM simulator stays in the tests', () => {
  it('is a devDependency, never a dependency of the package', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    expect(manifest['devDependencies']?.['@cloud-copilot/iam-simulate']).toBeDefined();
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) expect(manifest[field]?.['@cloud-copilot/iam-simulate'], field).toBeUndefined();
  });

  it('is imported by no file outside test/', () => {
    const importing = SHIPPED.flatMap((dir) => sourceFiles(join(REPO, dir))).filter((file) => readFileSync(file, 'utf8').includes('@cloud-copilot/'));
    expect(importing).toEqual([]);
  });
});
