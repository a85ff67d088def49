import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test folders from the quickest to the slowest to start: pure functions, then tests against one
 * dynalite, then the wire rig (dynalite, local SES and SNS, fault proxies). A file outside these
 * runs last.
 */
const FOLDERS_FAST_FIRST = [
  'test/core/',
  'test/adapters/',
  'test/status/',
  'test/reclaimer/',
  'test/delivery/',
  'test/sender/',
  'test/cli/',
  'test/wire/',
] as const;

function rank(spec: TestSpecification): number {
  const path = relative(spec.project.config.root, spec.moduleId).replaceAll('\\', '/');
  const index = FOLDERS_FAST_FIRST.findIndex((folder) => path.startsWith(folder));
  return index === -1 ? FOLDERS_FAST_FIRST.length : index;
}

/**
 * For Stryker only. The runner stops at a mutant's first failing test (bail 1), so the order of the
 * covering files decides how long a killed mutant takes: vitest's own order (slowest file first,
 * for parallel workers) would start the wire rig before the millisecond test that kills the mutant.
 * Within a folder, vitest's order is kept.
 */
export class FastFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array sort is stable: files of one folder keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
