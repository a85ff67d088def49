import { localeChain, readLocale, type LocaleFallbackReason } from '../event/recipient-locale';
import { DEFAULT_TEMPLATE_LOCALE, type Template, type TemplateVariant } from './template-definition';

/** Which of a template's variants a recipient gets, and how it was found. */
export interface LocaleResolution {
  /** The variant's locale: the language the message is written in (what the ledger row records). */
  readonly locale: string;
  /**
   * The locale values are written in (numbers, amounts, dates): the recipient's own tag when its chain found the
   * variant (`de-AT` gets the `de` texts with Austrian amounts, `€ 1.234,50`), else the variant's locale.
   */
  readonly formatLocale: string;
  /** The tags tried, in order, the last being the one found: `de-AT, de`; `fr-CA, fr, en` (the default). */
  readonly chain: readonly string[];
  /** Why the default locale was used when the recipient's tag did not lead to a variant; none when it did. */
  readonly fallback?: LocaleFallbackReason;
}

/** The template's default locale: the language of its own texts. */
export function defaultLocaleOf(template: Pick<Template, 'locale'>): string {
  return template.locale ?? DEFAULT_TEMPLATE_LOCALE;
}

/** The locales a template has a variant in: its default first, then each translation's. */
export function localesOf(template: Pick<Template, 'locale' | 'translations'>): readonly string[] {
  return [defaultLocaleOf(template), ...(template.translations?.keys() ?? [])];
}

/**
 * The variant of `template` a recipient who asked for `requested` (an event's `locale`, as given) gets. The chain
 * is the canonical tag, then each shorter parent (`de-AT` → `de`; `zh-Hant-TW` → `zh-Hant` → `zh`), then the
 * template's default locale. A missing, ill-formed or too long value, or a tag none of whose chain has a variant,
 * ends at the default with the reason: the message is sent, never refused for its language. Pure.
 */
export function resolveTemplateLocale(template: Pick<Template, 'locale' | 'translations'>, requested: unknown): LocaleResolution {
  const fallbackLocale = defaultLocaleOf(template);
  const read = readLocale(requested);
  if (!read.ok) return { locale: fallbackLocale, formatLocale: fallbackLocale, chain: [fallbackLocale], fallback: read.reason };
  const tried: string[] = [];
  for (const tag of localeChain(read.tag)) {
    tried.push(tag);
    if (tag === fallbackLocale || template.translations?.has(tag)) return { locale: tag, formatLocale: read.tag, chain: tried };
  }
  return { locale: fallbackLocale, formatLocale: fallbackLocale, chain: [...tried, fallbackLocale], fallback: 'no-variant' };
}

/** The texts of `template` in `locale`: a translation's, or the template's own for its default locale (or a locale it lacks). */
export function variantIn(template: Template, locale: string | undefined): TemplateVariant {
  const translation = locale === undefined ? undefined : template.translations?.get(locale);
  return translation ?? template;
}
