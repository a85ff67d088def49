import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, type Token } from 'marked';

/** A link in a markdown page that does not lead where it says, and why. */
export interface BrokenLink {
  /** The page holding the link, relative to the repository root. */
  readonly page: string;
  readonly href: string;
  readonly problem: string;
}

/** The repository's files, by path relative to its root; injectable so the checker can be tried on made-up pages. */
export interface Repository {
  /** The text of a file, or `undefined` when there is no file at that path. */
  read(path: string): string | undefined;
  /** Whether a file or folder is at that path. */
  exists(path: string): boolean;
}

/** The files under `root` on disk. */
export function repositoryOnDisk(root: string): Repository {
  return {
    read: (path) => {
      const full = join(root, path);
      return existsSync(full) && statSync(full).isFile() ? readFileSync(full, 'utf8') : undefined;
    },
    exists: (path) => existsSync(join(root, path)),
  };
}

function plainText(tokens: readonly Token[]): string {
  return tokens.map((t) => ('tokens' in t && t.tokens ? plainText(t.tokens) : 'text' in t ? String(t.text) : '')).join('');
}

/** The anchors GitHub gives a page's headings (github-slugger: lower case, punctuation dropped, `-1` for a repeat). */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of new Lexer({ gfm: true }).lex(markdown)) {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText(token.tokens ?? [])));
  }
  return anchors;
}

/** Every link and image target in a page; code blocks and code spans hold none. */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  const walk = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'link' || token.type === 'image') targets.push(String(token.href));
      if ('tokens' in token && token.tokens) walk(token.tokens);
      if (token.type === 'list') walk(token.items as Token[]);
      if (token.type === 'table') {
        for (const cell of [...token.header, ...token.rows.flat()]) walk(cell.tokens as Token[]);
      }
    }
  };
  walk(new Lexer({ gfm: true }).lex(markdown));
  return targets;
}

/**
 * What is wrong with one link of `page`, or `undefined`: a relative path must name a file or folder inside
 * the repository, and an anchor (`#x` in the same page, `other.md#x` in another) must be a heading of that
 * markdown page. Web and mail links are not followed: nothing here leaves the machine.
 */
export function checkLink(page: string, href: string, repository: Repository): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const hashAt = href.indexOf('#');
  const path = decodeURIComponent(hashAt === -1 ? href : href.slice(0, hashAt));
  const anchor = hashAt === -1 ? undefined : decodeURIComponent(href.slice(hashAt + 1));
  const target = path === '' ? page : normalize(join(dirname(page), path));
  if (isAbsolute(path) || target === '..' || target.startsWith('../')) return `${path} is outside the repository`;
  if (!repository.exists(target)) return `${target} does not exist`;
  if (anchor === undefined) return undefined;
  const text = extname(target) === '.md' ? repository.read(target) : undefined;
  if (text === undefined) return `#${anchor} points into ${target}, which is not a markdown page`;
  if (!headingAnchors(text).has(anchor)) return `${target} has no heading whose anchor is #${anchor}`;
  return undefined;
}

/** Every broken link of the given pages (paths relative to the repository root). */
export function brokenLinks(pages: readonly string[], repository: Repository): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const text = repository.read(page);
    if (text === undefined) {
      broken.push({ page, href: '', problem: `${page} does not exist` });
      continue;
    }
    for (const href of linkTargets(text)) {
      const problem = checkLink(page, href, repository);
      if (problem) broken.push({ page, href, problem });
    }
  }
  return broken;
}
