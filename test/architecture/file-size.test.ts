import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SOURCE_LINES, oversizedFiles, sourceFileLines } from './file-size';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Files allowed past the limit, each with its reason. A file that grows past it is split by concern instead
 * (docs/design/architecture.md, "Architecture"); an exception is for a file whose one idea cannot be cut without a seam.
 */
const EXCEPTIONS: Readonly<Record<string, string>> = {};

describe(`no source file outside test/ is over ${MAX_SOURCE_LINES} lines`, () => {
  const files = sourceFileLines(ROOT);

  it('reads the real tree (the product, the local tools and the benches)', () => {
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['functions/delivery/deliver-message.ts', 'lib/alarm-table.ts', 'local/simulation-report.ts', 'bench/run.ts']));
    expect(paths.some((p) => p.includes('node_modules') || p.startsWith('test/'))).toBe(false);
  });

  it('has none over the limit, but for the stated exceptions', () => {
    expect(oversizedFiles(files, EXCEPTIONS)).toEqual([]);
  });

  it('keeps no exception for a file that is back under the limit or gone', () => {
    const sizes = new Map(files.map((f) => [f.path, f.lines]));
    expect(Object.keys(EXCEPTIONS).filter((path) => (sizes.get(path) ?? 0) <= MAX_SOURCE_LINES)).toEqual([]);
  });

  it('flags a file one line over the limit, not one at it, and not an exception', () => {
    const at = { path: 'lib/at.ts', lines: MAX_SOURCE_LINES };
    const over = { path: 'lib/over.ts', lines: MAX_SOURCE_LINES + 1 };
    const excused = { path: 'lib/excused.ts', lines: 900 };
    expect(oversizedFiles([at, over, excused], { 'lib/excused.ts': 'a stated reason' })).toEqual([`lib/over.ts: ${MAX_SOURCE_LINES + 1} lines (at most ${MAX_SOURCE_LINES})`]);
  });
});
