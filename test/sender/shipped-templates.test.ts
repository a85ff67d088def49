import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR, readTemplateFiles } from '../../functions/adapters/template-directory';
import { ConfigurationError } from '../../functions/core/errors';
import { buildTemplateRegistry } from '../../functions/core/template-checks/template-registry';
import { embeddedTemplates, loadShippedTemplates, SHIPPED_TEMPLATES_IDENTIFIER } from '../../functions/sender/shipped-templates';
import { templateBundling } from '../../lib/notifier-templates';

/** The shipped templates as synth embeds them: its define, read back as esbuild writes it into the bundle. */
const embedded = () => JSON.parse(templateBundling(DEFAULT_TEMPLATES_DIR).define[SHIPPED_TEMPLATES_IDENTIFIER]!) as unknown;

/** A registry with every description left out (synth leaves them out: they are for people). */
const withoutDescriptions = (registry: ReturnType<typeof buildTemplateRegistry>) =>
  [...registry.values()].map((template) => JSON.parse(JSON.stringify({ ...template, translations: [...(template.translations ?? [])] }, (k, v: unknown) => (k === 'description' ? undefined : v))) as unknown);

describe('the sender\'s templates at cold start', () => {
  it('refuses to start from a build that embedded no templates', () => {
    expect(embeddedTemplates()).toBeUndefined();
    expect(() => loadShippedTemplates()).toThrow(ConfigurationError);
    expect(() => loadShippedTemplates()).toThrow(/No templates were embedded in this bundle \(__NOTIFIER_TEMPLATES__\)/);
    expect(() => loadShippedTemplates()).toThrow(/: build the sender with the IdempotentNotifier construct, which validates the templates folder at synth and embeds it$/);
  });

  it('reads the templates synth checked as they are: the registry that checking the files builds, descriptions left out', () => {
    const files = readTemplateFiles(DEFAULT_TEMPLATES_DIR);
    const loaded = loadShippedTemplates(embedded());
    expect([...loaded.keys()]).toEqual(['login-code', 'order-shipped', 'order-sold', 'weekly-offers']);
    expect(withoutDescriptions(loaded)).toEqual(withoutDescriptions(buildTemplateRegistry(files)));
    expect(loaded.get('login-code')?.translations).toBeInstanceOf(Map);
    expect([...(loaded.get('login-code')?.translations?.keys() ?? [])]).toEqual(['de']);
  });

  it('refuses a bundle that embeds anything but synth\'s checked templates, such as the raw template files', () => {
    const files = readTemplateFiles(DEFAULT_TEMPLATES_DIR);
    for (const other of [files, { format: 'notifier-checked-templates/0', templates: [] }, null, 'login-code']) {
      expect(() => loadShippedTemplates(other)).toThrow(ConfigurationError);
      expect(() => loadShippedTemplates(other)).toThrow(/embeds something other than the templates synth checked \(__NOTIFIER_TEMPLATES__ is not notifier-checked-templates\/1\)/);
    }
  });
});
