import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { checkTemplateFiles } from '../../functions/core/template-checks/template-registry';
import { codeBlocks, docCodeBlocks, isConstructSnippet, snippetApp, type DocCodeBlock } from '../support/doc-code-blocks';

const ROOT = join(__dirname, '..', '..');
const BLOCKS = docCodeBlocks(ROOT);
const where = (b: DocCodeBlock): string => `${b.page}:${b.line}`;

// A notification event (an outcome event names its eventId too, but no recipients).
const isEvent = (b: DocCodeBlock): boolean => b.lang === 'json' && /"eventId"/.test(b.text) && /"recipients"/.test(b.text);
const isTemplate = (b: DocCodeBlock): boolean => b.lang === 'json' && b.page === 'docs/design/templates.md' && /"fields"/.test(b.text);

describe('the code-block reader', () => {
  it('finds blocks, their language, an indented block inside a list, and the marker on the line before', () => {
    const page = [
      'text',
      '<!-- illustration: needs AWS credentials -->',
      '```sh',
      'aws sqs list-queues',
      '```',
      '1. step',
      '   ```json',
      '   {"a": 1}',
      '   ```',
      '<!-- checked by test/docs/key-formula.test.ts -->',
      '',
      '```bash',
      'node -e 1',
      '```',
    ].join('\n');
    expect(codeBlocks('p.md', page)).toEqual([
      { page: 'p.md', line: 3, lang: 'sh', text: 'aws sqs list-queues', marker: { kind: 'illustration', reason: 'needs AWS credentials' } },
      { page: 'p.md', line: 7, lang: 'json', text: '{"a": 1}' },
      { page: 'p.md', line: 12, lang: 'bash', text: 'node -e 1', marker: { kind: 'checked-by', test: 'test/docs/key-formula.test.ts' } },
    ]);
  });

  it('puts a snippet written inside a stack into a stack, with the names it leaves to the reader', () => {
    const app = snippetApp(
      { page: 'p.md', line: 1, lang: 'ts', text: "import { IdempotentNotifier } from 'idempotent-notifier';\nnotifier.grantSendEvents(orderServiceRole);" },
      'Docs1',
    );
    expect(app).toMatch(/^import \{ IdempotentNotifier \} from 'idempotent-notifier';$/m);
    expect(app).toMatch(/super\(scope, id\);[\s\S]*const orderServiceRole[\s\S]*notifier\.grantSendEvents/);
    expect(app).toMatch(/new DocsStack\(new App\(\), 'Docs1'\);/);
  });
});

describe('README.md and docs/: every block a reader would paste runs, is checked, or says it is an illustration', () => {
  it('has a construct snippet, which test/examples/adopter-app.test.ts synthesizes from the packed tarball', () => {
    expect(BLOCKS.filter(isConstructSnippet).map(where)).toContain(
      where(BLOCKS.find((b) => b.page === 'docs/deployment.md' && isConstructSnippet(b) && /new App\(/.test(b.text)) ?? BLOCKS[0]!),
    );
    expect(BLOCKS.filter(isConstructSnippet).length).toBeGreaterThanOrEqual(2);
  });

  it('gives every block a language (text for printed output and diagrams)', () => {
    expect(BLOCKS.filter((b) => b.lang === '').map(where)).toEqual([]);
  });

  it('has event examples the event schema accepts', () => {
    const events = BLOCKS.filter(isEvent);
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const block of events) expect(() => parseNotificationBody(block.text), where(block)).not.toThrow();
  });

  it('has a template example the template check accepts', () => {
    const templates = BLOCKS.filter(isTemplate);
    expect(templates.length).toBe(1);
    for (const block of templates) {
      expect(checkTemplateFiles([{ name: 'order-shipped.json', text: block.text }]).problems, where(block)).toEqual([]);
    }
  });

  it('marks every other block a reader would paste as an illustration, with a reason, or names the test that runs it', () => {
    const checked = (b: DocCodeBlock): boolean => b.lang === 'text' || isConstructSnippet(b) || isEvent(b) || isTemplate(b);
    expect(BLOCKS.filter((b) => !checked(b) && !b.marker).map((b) => `${where(b)} (${b.lang})`)).toEqual([]);
  });

  it('names tests that exist and read the page they check', () => {
    for (const block of BLOCKS) {
      if (block.marker?.kind !== 'checked-by') continue;
      const test = join(ROOT, block.marker.test);
      expect(existsSync(test), where(block)).toBe(true);
      expect(readFileSync(test, 'utf8'), `${block.marker.test} reads ${block.page}`).toContain(block.page);
    }
  });
});
