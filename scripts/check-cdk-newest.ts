// `npm run check:cdk-newest`: asks the npm registry for the newest aws-cdk-lib, constructs and aws-cdk (the CLI)
// and says which of this repository's pins is behind, with the steps to raise it. The adopter test
// (test/examples/adopter-app.test.ts) installs the package into an app with the pinned versions as "the newest":
// true on the day of the last bump only, so a maintainer runs this before a release (docs/deployment.md,
// "Publishing"). Not part of `npm test`: the suite never leaves loopback, and a registry release must not turn it red.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

/**
 * The packages whose newest release the adopter test stands for, each with why it moves with the others:
 * `aws-cdk-lib` and `constructs` are the peers an adopter's app brings; the CLI must read the cloud assembly
 * the newest aws-cdk-lib writes (an older CLI refuses a newer schema version).
 */
export const CDK_PINS = ['aws-cdk-lib', 'constructs', 'aws-cdk'] as const;
export type CdkPin = (typeof CDK_PINS)[number];

/** One pin behind the registry's newest release. */
export interface CdkBump {
  readonly name: CdkPin;
  readonly pinned: string;
  readonly newest: string;
}

/** The pins older than the registry's newest; a pin at or past it (a pre-release ahead) is not a bump. */
export function cdkBumps(pinned: Readonly<Record<CdkPin, string>>, newest: Readonly<Record<CdkPin, string>>): CdkBump[] {
  return CDK_PINS.filter((name) => semver.lt(pinned[name], newest[name])).map((name) => ({ name, pinned: pinned[name], newest: newest[name] }));
}

/** What to tell the maintainer: each bump and the steps, or that the pins are the newest. */
export function bumpReport(bumps: readonly CdkBump[], pinned: Readonly<Record<CdkPin, string>>): string[] {
  if (bumps.length === 0) return [`The pins are the newest releases: ${CDK_PINS.map((name) => `${name} ${pinned[name]}`).join(', ')}.`];
  return [
    ...bumps.map((b) => `${b.name} ${b.pinned} is pinned; the newest is ${b.newest}.`),
    'Raise each in package.json devDependencies and examples/adopter-app/package.json (the adopter test requires them equal), then:',
    `  npm install --save-exact --save-dev ${bumps.map((b) => `${b.name}@${b.newest}`).join(' ')}`,
    '  npx tsc --noEmit && npx vitest run test/examples/adopter-app.test.ts test/cdk test/iam',
    'The peer ranges (the floor) stay as they are unless lib/ starts using an API the floor lacks (docs/deployment.md).',
  ];
}

/** The exact version package.json pins for each, as the registry's `npm view` gives its newest. */
function pinnedVersions(root: string): Record<CdkPin, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  return Object.fromEntries(CDK_PINS.map((name) => [name, manifest.devDependencies[name] ?? '0.0.0'])) as Record<CdkPin, string>;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pinned = pinnedVersions(process.cwd());
  const newest = Object.fromEntries(
    CDK_PINS.map((name) => [name, execFileSync('npm', ['view', name, 'version'], { encoding: 'utf8' }).trim()]),
  ) as Record<CdkPin, string>;
  const bumps = cdkBumps(pinned, newest);
  for (const line of bumpReport(bumps, pinned)) process.stdout.write(`${line}\n`);
  process.exitCode = bumps.length > 0 ? 1 : 0;
}
