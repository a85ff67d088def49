import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR, readTemplateFiles } from '../../functions/adapters/template-directory';
import { ConfigurationError } from '../../functions/core/errors';
import { TemplateValidationError } from '../../functions/core/template-checks/template-problems';
import { embeddedTemplateFiles, loadShippedTemplates } from '../../functions/sender/shipped-templates';

describe('the sender\'s templates at cold start', () => {
  it('refuses to start from a build that embedded no templates', () => {
    expect(embeddedTemplateFiles()).toBeUndefined();
    expect(() => loadShippedTemplates()).toThrow(ConfigurationError);
    expect(() => loadShippedTemplates()).toThrow(/No templates were embedded in this bundle \(__NOTIFIER_TEMPLATES__\)/);
    expect(() => loadShippedTemplates()).toThrow(/: build the sender with the IdempotentNotifier construct, which validates the templates folder at synth and embeds it$/);
  });

  it('validates the embedded files again, with the rules synth used', () => {
    const files = readTemplateFiles(DEFAULT_TEMPLATES_DIR);
    expect([...loadShippedTemplates(files).keys()]).toEqual(['login-code', 'order-shipped', 'order-sold', 'weekly-offers']);
    const bad = [...files, { name: 'x.json', text: '{"fields":{},"sms":{"text":"{{{raw}}}"}}' }];
    expect(() => loadShippedTemplates(bad)).toThrow(TemplateValidationError);
  });
});
