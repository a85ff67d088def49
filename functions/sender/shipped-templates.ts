import { ConfigurationError } from '../core/errors';
import type { TemplateFile } from '../core/templates/template-definition';
import { buildTemplateRegistry } from '../core/template-checks/template-registry';
import type { TemplateRegistry } from '../core/templates/templates';

/**
 * The identifier the template files are embedded under: synth (lib/notifier-templates.ts) hands esbuild
 * a `define` for it, which replaces this free identifier in the bundle with the files.
 * Unbundled (tests of this module), it is a plain global.
 */
export const SHIPPED_TEMPLATES_IDENTIFIER = '__NOTIFIER_TEMPLATES__';

declare const __NOTIFIER_TEMPLATES__: readonly TemplateFile[] | undefined;

/** The template files embedded in this bundle, or undefined when it was built without them (or not bundled). */
export function embeddedTemplateFiles(): readonly TemplateFile[] | undefined {
  return typeof __NOTIFIER_TEMPLATES__ === 'undefined' ? undefined : __NOTIFIER_TEMPLATES__;
}

/**
 * The sender's templates at cold start: the files synth embedded, validated again here with the same
 * rules, so a bundle built any other way fails before it touches a message instead of at every send.
 * @throws ConfigurationError when no templates were embedded; TemplateValidationError listing every problem.
 */
export function loadShippedTemplates(files: readonly TemplateFile[] | undefined = embeddedTemplateFiles()): TemplateRegistry {
  if (!files) {
    throw new ConfigurationError(
      `No templates were embedded in this bundle (${SHIPPED_TEMPLATES_IDENTIFIER}): build the sender with the IdempotentNotifier ` +
        'construct, which validates the templates folder at synth and embeds it',
    );
  }
  return buildTemplateRegistry(files);
}
