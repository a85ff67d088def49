import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR, loadTemplateDirectory, readTemplateFiles, repositoryTemplates } from '../../functions/adapters/template-directory';
import { TemplateValidationError } from '../../functions/core/template-checks/template-problems';
import { tempDir } from '../support/temp-dir';

describe('the templates folder', () => {
  it('ships the four templates the sender always had, each valid', () => {
    expect([...repositoryTemplates().keys()].sort()).toEqual(['login-code', 'order-shipped', 'order-sold', 'weekly-offers']);
  });

  it('reads only *.json files directly in the folder, sorted by name, as they are on disk', () => {
    const dir = tempDir('notifier-templates-');
    writeFileSync(join(dir, 'b.json'), '{"b": 1}');
    writeFileSync(join(dir, 'a.json'), '{"a": 1}');
    writeFileSync(join(dir, 'README.md'), '# notes');
    mkdirSync(join(dir, 'drafts.json'));
    expect(readTemplateFiles(dir)).toEqual([
      { name: 'a.json', text: '{"a": 1}' },
      { name: 'b.json', text: '{"b": 1}' },
    ]);
  });

  it('picks up a template added as a file, and refuses the folder when any file is invalid', () => {
    const dir = join(tempDir('notifier-templates-'), 'templates');
    cpSync(DEFAULT_TEMPLATES_DIR, dir, { recursive: true });
    writeFileSync(join(dir, 'parcel-delayed.json'), JSON.stringify({ fields: { orderId: { maxLength: 32 } }, sms: { text: 'Order {{orderId}} is late.' } }));
    expect(loadTemplateDirectory(dir).has('parcel-delayed')).toBe(true);

    writeFileSync(join(dir, 'broken.json'), JSON.stringify({ fields: {}, sms: { text: '{{orderId}}' } }));
    expect(() => loadTemplateDirectory(dir)).toThrow(TemplateValidationError);
  });
});
