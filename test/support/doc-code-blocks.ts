import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The fenced code blocks of the pages a newcomer reads (README.md and docs/), each with what the suite does with
 * it. A block a reader would paste is run or checked by a test, or says it is an illustration: an HTML comment on
 * the line before it, `<!-- illustration: why it is not run -->` (credentials, a long run, a placeholder to fill
 * in) or `<!-- checked by test/path.test.ts -->` (a test that reads this page runs it). Diagrams and printed
 * output are `text` blocks.
 */
export interface DocCodeBlock {
  /** The page, relative to the repository root. */
  readonly page: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  /** The fence's language word (`ts`, `sh`, `json`, `text`), `''` when it has none. */
  readonly lang: string;
  /** The block's text, its indentation (a block inside a list item) removed. */
  readonly text: string;
  /** The marker comment on the line before the block, if any. */
  readonly marker?: DocBlockMarker;
}

export type DocBlockMarker =
  | { readonly kind: 'illustration'; readonly reason: string }
  | { readonly kind: 'checked-by'; readonly test: string };

const FENCE = /^(\s*)(`{3,})(\S*)/;
const MARKER = /^\s*<!--\s*(illustration:\s*(.+?)|checked by\s+(\S+))\s*-->\s*$/;

/** The blocks of one page's markdown. */
export function codeBlocks(page: string, markdown: string): DocCodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocCodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j] ?? '').trimStart().startsWith(fence); j++) body.push((lines[j] ?? '').slice(indent.length));
    const marker = markerOf(lines.slice(0, i).reverse().find((l) => l.trim() !== ''));
    blocks.push({ page, line: i + 1, lang, text: body.join('\n'), ...(marker ? { marker } : {}) });
    i = j;
  }
  return blocks;
}

function markerOf(line: string | undefined): DocBlockMarker | undefined {
  const match = MARKER.exec(line ?? '');
  if (!match) return undefined;
  return match[2] !== undefined ? { kind: 'illustration', reason: match[2] } : { kind: 'checked-by', test: match[3] ?? '' };
}

/** The pages: README.md and every markdown page under docs/. */
export function docPages(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`)
      .sort(),
  ];
}

/** Every block of every page. */
export function docCodeBlocks(root: string): DocCodeBlock[] {
  return docPages(root).flatMap((page) => codeBlocks(page, readFileSync(join(root, page), 'utf8')));
}

/** A TypeScript block that uses the package: the construct snippets an adopter pastes into a CDK app. */
export function isConstructSnippet(block: DocCodeBlock): boolean {
  return block.lang === 'ts' && /from '(idempotent-notifier)'/.test(block.text);
}

/**
 * A construct snippet as a file of a CDK app. A whole app (it makes its `App`) is taken as written; a snippet
 * written inside a stack (it uses `this`) goes into the constructor of a `Stack`, where the names it leaves to
 * the reader exist: `orderServiceRole` (an IAM role) and `ordersTopic` (an SNS topic). A snippet that uses any
 * other name it does not define fails to type-check, which is the point.
 */
export function snippetApp(block: DocCodeBlock, stackName: string): string {
  const lines = block.text.split('\n');
  const imports = lines.filter((l) => /^import\s/.test(l));
  const body = lines.filter((l) => !/^import\s/.test(l));
  if (/new App\(/.test(block.text)) return block.text.endsWith('\n') ? block.text : `${block.text}\n`;
  return [
    `// ${block.page}:${block.line}, inside a stack as the page shows it.`,
    ...imports,
    "import { App, Stack } from 'aws-cdk-lib';",
    "import * as iam from 'aws-cdk-lib/aws-iam';",
    "import * as sns from 'aws-cdk-lib/aws-sns';",
    "import type { Construct } from 'constructs';",
    '',
    'class DocsStack extends Stack {',
    '  constructor(scope: Construct, id: string) {',
    '    super(scope, id);',
    "    const orderServiceRole = new iam.Role(this, 'OrderService', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });",
    "    const ordersTopic = new sns.Topic(this, 'Orders', { enforceSSL: true });",
    ...body.map((l) => (l === '' ? l : `    ${l}`)),
    '  }',
    '}',
    '',
    `new DocsStack(new App(), '${stackName}');`,
    '',
  ].join('\n');
}
