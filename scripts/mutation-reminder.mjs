#!/usr/bin/env node
// Git pre-commit hook body (.githooks/pre-commit): when a commit changes code that mutation testing covers
// (stryker.config.mjs `mutate`), say so and name the command. It never blocks a commit: a full run takes
// about 40 minutes on two cores, so it belongs before a push, not in every commit.
import { execFileSync } from 'node:child_process';
import config from '../stryker.config.mjs';

export const MUTATE_SCOPE = config.mutate;

/** A Stryker `mutate` glob as a regular expression (`**` any folders, `*` within one name). */
export function globToRegExp(glob) {
  const source = glob
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/** The staged files that mutation testing covers. */
export function coveredFiles(files, globs = MUTATE_SCOPE) {
  const patterns = globs.filter((g) => !g.startsWith('!')).map(globToRegExp);
  return files.filter((file) => patterns.some((pattern) => pattern.test(file)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const staged = execFileSync('git', ['diff', '--cached', '--name-only', '--diff-filter=ACMR'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  const covered = coveredFiles(staged);
  if (covered.length > 0) {
    process.stderr.write(
      `This commit changes code that mutation testing covers (${covered.length} file${covered.length === 1 ? '' : 's'}: ${covered.slice(0, 3).join(', ')}${covered.length > 3 ? ', ...' : ''}).\n` +
        'Before you push, run `npm run mutate:changed` (or `npm run mutate` after a change under test/support/); it fails under 90%. See docs/testing.md.\n',
    );
  }
}
