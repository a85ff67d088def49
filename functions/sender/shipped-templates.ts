import { ConfigurationError } from '../core/errors';
import type { Template, TemplateVariant } from '../core/templates/template-definition';
import type { TemplateRegistry } from '../core/templates/templates';

/**
 * The identifier the templates are embedded under: synth (lib/notifier-templates.ts) checks the template files and
 * hands esbuild a `define` for it, which replaces this free identifier in the bundle with the checked templates.
 * Unbundled (tests of this module), it is a plain global.
 */
export const SHIPPED_TEMPLATES_IDENTIFIER = '__NOTIFIER_TEMPLATES__';

/** Names what synth embeds: a bundle whose identifier holds anything else was not built by the construct. */
export const SHIPPED_TEMPLATES_FORMAT = 'notifier-checked-templates/1';

/** A checked template as embedded: JSON, so its translations are `[locale, variant]` pairs instead of a Map. */
export type ShippedTemplate = Omit<Template, 'translations'> & {
  /** Every other locale's variant. @default none */
  readonly translations?: ReadonlyArray<readonly [string, TemplateVariant]>;
};

/** What synth embeds under {@link SHIPPED_TEMPLATES_IDENTIFIER}: the templates that passed its checks, defaults applied. */
export interface ShippedTemplates {
  readonly format: typeof SHIPPED_TEMPLATES_FORMAT;
  readonly templates: readonly ShippedTemplate[];
}

declare const __NOTIFIER_TEMPLATES__: unknown;

/** What this bundle embeds under {@link SHIPPED_TEMPLATES_IDENTIFIER}, or undefined when nothing (or not bundled). */
export function embeddedTemplates(): unknown {
  return typeof __NOTIFIER_TEMPLATES__ === 'undefined' ? undefined : __NOTIFIER_TEMPLATES__;
}

/** The embedding of templates that passed the checks (`checkTemplateFiles`): what synth puts in the bundle. */
export function shippedTemplatesOf(checked: Iterable<Template>): ShippedTemplates {
  return {
    format: SHIPPED_TEMPLATES_FORMAT,
    templates: [...checked].map(({ translations, ...template }) => ({ ...template, ...(translations ? { translations: [...translations] } : {}) })),
  };
}

const BUILD_WITH_THE_CONSTRUCT = 'build the sender with the IdempotentNotifier construct, which validates the templates folder at synth and embeds it';

/**
 * The sender's templates at cold start: the ones synth checked (every file, every rule: docs/design/templates.md)
 * and embedded, read as they are. Checking them again here cost more of a cold start than anything else the sender
 * does (issue 50), and could find nothing synth did not: the same code checked the same files. A bundle built any
 * other way holds no {@link SHIPPED_TEMPLATES_FORMAT} and fails here, before it touches a message.
 * @throws ConfigurationError when no templates, or anything but synth's checked templates, were embedded.
 */
export function loadShippedTemplates(shipped: unknown = embeddedTemplates()): TemplateRegistry {
  if (shipped === undefined) {
    throw new ConfigurationError(`No templates were embedded in this bundle (${SHIPPED_TEMPLATES_IDENTIFIER}): ${BUILD_WITH_THE_CONSTRUCT}`);
  }
  if (!isShippedTemplates(shipped)) {
    throw new ConfigurationError(
      `This bundle embeds something other than the templates synth checked (${SHIPPED_TEMPLATES_IDENTIFIER} is not ${SHIPPED_TEMPLATES_FORMAT}): ${BUILD_WITH_THE_CONSTRUCT}`,
    );
  }
  return new Map(
    shipped.templates.map(({ translations, ...template }) => [template.id, { ...template, ...(translations ? { translations: new Map(translations) } : {}) }]),
  );
}

function isShippedTemplates(value: unknown): value is ShippedTemplates {
  const shipped = value as Partial<ShippedTemplates> | null;
  return typeof shipped === 'object' && shipped !== null && shipped.format === SHIPPED_TEMPLATES_FORMAT && Array.isArray(shipped.templates);
}
