import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALARM, RUNBOOK_PAGE, runbookLink } from '../../lib/notifier-alarms';
import { brokenLinks, checkLink, headingAnchors, linkTargets, type Repository, repositoryOnDisk } from '../support/markdown-links';

const ROOT = join(__dirname, '..', '..');
const repository = repositoryOnDisk(ROOT);
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
];

/** A made-up repository, to show the checker refuses what it should. */
function madeUp(files: Record<string, string>, folders: readonly string[] = []): Repository {
  return { read: (path) => files[path], exists: (path) => path in files || folders.includes(path) };
}

describe('the link checker', () => {
  it('gives headings the anchors GitHub gives them', () => {
    const anchors = headingAnchors(
      '# Title\n## `npm run bench:pace`: at the providers\' pace\n### Reclaimer (`functions/reclaimer/handler.ts`)\n' +
        '## Support look-up on a local ledger: `npx notifier ledger --local`\n## Title\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual([
      'title',
      'npm-run-benchpace-at-the-providers-pace',
      'reclaimer-functionsreclaimerhandlerts',
      'support-look-up-on-a-local-ledger-npx-notifier-ledger---local',
      'title-1',
    ]);
  });

  it('finds links in text, lists and tables, and none in code', () => {
    const page = '[a](a.md) `[b](b.md)`\n\n- [c](c.md#x)\n\n| h |\n| - |\n| [d](d.md) |\n\n```\n[e](e.md)\n```\n';
    expect(linkTargets(page)).toEqual(['a.md', 'c.md#x', 'd.md']);
  });

  it('refuses a missing file, a missing anchor, an anchor into a non-markdown file and a path out of the repository', () => {
    const repo = madeUp({ 'README.md': '# Top\n', 'docs/a.md': '# A\n## Known section\n', 'lib/x.ts': '' }, ['docs']);
    expect(checkLink('docs/a.md', 'b.md', repo)).toBe('docs/b.md does not exist');
    expect(checkLink('docs/a.md', '#unknown', repo)).toBe('docs/a.md has no heading whose anchor is #unknown');
    expect(checkLink('README.md', 'docs/a.md#nothing', repo)).toBe('docs/a.md has no heading whose anchor is #nothing');
    expect(checkLink('docs/a.md', '../lib/x.ts#L1', repo)).toBe('#L1 points into lib/x.ts, which is not a markdown page');
    expect(checkLink('docs/a.md', '../../etc/passwd', repo)).toBe('../../etc/passwd is outside the repository');
  });

  it('accepts an existing file, folder or heading anywhere in the repository, and does not follow web links', () => {
    const repo = madeUp({ 'README.md': '# Top\n', 'docs/a.md': '# A\n## Known section\n', 'lib/x.ts': '' }, ['docs']);
    for (const [page, href] of [
      ['docs/a.md', '#known-section'],
      ['docs/a.md', '../README.md#top'],
      ['README.md', 'docs/a.md#known-section'],
      ['README.md', 'docs'],
      ['README.md', 'lib/x.ts'],
      ['README.md', 'https://example.com/missing#nowhere'],
    ] as const) {
      expect(checkLink(page, href, repo), `${page} -> ${href}`).toBeUndefined();
    }
  });
});

describe('the README and docs/', () => {
  it('cover the pages the README links to', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/design.md', 'docs/design/ledger.md', 'docs/deployment.md', 'docs/operations.md']));
  });

  it('have no broken relative link or anchor', () => {
    expect(brokenLinks(PAGES, repository)).toEqual([]);
  });

  // The README is the door; the rest belongs in docs/ (issue 12).
  it('keep the README at 300 lines or fewer', () => {
    const lines = repository.read('README.md')!.match(/\n/g)?.length ?? 0; // as `wc -l` counts them
    expect(lines).toBeLessThanOrEqual(300);
  });
});

describe('the alarm runbook', () => {
  it.each(Object.values(ALARM))('has the entry the %s alarm points to', (name) => {
    expect(runbookLink(name).startsWith(`${RUNBOOK_PAGE}#`)).toBe(true);
    expect(checkLink('README.md', runbookLink(name), repository)).toBeUndefined();
  });
});
