import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A source file a newcomer can hold in their head: at most this many lines. */
export const MAX_SOURCE_LINES = 400;

/** The folders of product and tool source (test/ is not held to the limit). */
export const SOURCE_FOLDERS = ['bin', 'lib', 'functions', 'local', 'bench', 'cli', 'scripts', 'examples', 'types'] as const;

const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', 'results']);

/** Every source file under `folders` of `root`, as a path relative to `root` with its line count. */
export function sourceFileLines(root: string, folders: readonly string[] = SOURCE_FOLDERS): { readonly path: string; readonly lines: number }[] {
  const found: { path: string; lines: number }[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) found.push({ path: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 });
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** Each file over the limit and not among the stated exceptions, with its size. */
export function oversizedFiles(
  files: readonly { readonly path: string; readonly lines: number }[],
  exceptions: Readonly<Record<string, string>>,
  limit = MAX_SOURCE_LINES,
): string[] {
  return files.filter((f) => f.lines > limit && !(f.path in exceptions)).map((f) => `${f.path}: ${f.lines} lines (at most ${limit})`);
}
