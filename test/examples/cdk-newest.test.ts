import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bumpReport, CDK_PINS, cdkBumps } from '../../scripts/check-cdk-newest';
import { REPO } from '../support/adopter-project';

/** scripts/check-cdk-newest.ts without the registry: what it says for given pins and newest releases. */

const PINNED = { 'aws-cdk-lib': '2.278.0', constructs: '10.8.1', 'aws-cdk': '2.1149.0' } as const;

describe('npm run check:cdk-newest', () => {
  it('names each pin behind the registry\'s newest release, with the version to raise it to', () => {
    const bumps = cdkBumps(PINNED, { ...PINNED, 'aws-cdk-lib': '2.280.1', 'aws-cdk': '2.1150.0' });
    expect(bumps).toEqual([
      { name: 'aws-cdk-lib', pinned: '2.278.0', newest: '2.280.1' },
      { name: 'aws-cdk', pinned: '2.1149.0', newest: '2.1150.0' },
    ]);
    const report = bumpReport(bumps, PINNED).join('\n');
    expect(report).toMatch(/aws-cdk-lib 2\.278\.0 is pinned; the newest is 2\.280\.1\./);
    expect(report).toMatch(/npm install --save-exact --save-dev aws-cdk-lib@2\.280\.1 aws-cdk@2\.1150\.0/);
    expect(report).toMatch(/examples\/adopter-app\/package\.json/);
  });

  it('says the pins are the newest when none is behind (a pin ahead of the registry, a pre-release, is no bump)', () => {
    expect(cdkBumps(PINNED, PINNED)).toEqual([]);
    expect(cdkBumps({ ...PINNED, constructs: '10.9.0-beta.1' }, PINNED)).toEqual([]);
    expect(bumpReport([], PINNED)).toEqual(['The pins are the newest releases: aws-cdk-lib 2.278.0, constructs 10.8.1, aws-cdk 2.1149.0.']);
  });

  it('compares every package the adopter test stands for with what package.json pins exactly', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; scripts: Record<string, string> };
    for (const name of CDK_PINS) expect(manifest.devDependencies[name], name).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.scripts['check:cdk-newest']).toBe('tsx scripts/check-cdk-newest.ts');
    // Not run by npm test: the suite stays on loopback, and a new release must not turn it red.
    expect(manifest.scripts['test']).not.toMatch(/check:cdk-newest/);
  });
});
