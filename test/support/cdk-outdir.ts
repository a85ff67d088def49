import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Cloud assembly folders for the apps a test file synthesizes, all under one temporary folder that is
 * removed after the file's tests. An `App` without `outdir` makes its own `cdk.out*` folder in the OS temp
 * dir as soon as it is constructed, and CDK only removes those on a clean process exit, which a vitest
 * worker does not reliably reach.
 */
let root: string | undefined;

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A new, empty cloud assembly folder, removed after the current test file. */
export function testOutdir(): string {
  root ??= mkdtempSync(join(tmpdir(), 'notifier-cdk-test-'));
  return mkdtempSync(join(root, 'cdk.out-'));
}
