import { CHANNELS } from '../event/idempotency-key';
import { canonicalLocale } from '../event/recipient-locale';
import type { Template, TemplateVariant } from '../templates/template-definition';
import { defaultLocaleOf } from '../templates/template-locale';
import { limitProblems, templateFigures, type TemplateFigures } from './template-limits';
import { scanVariant, type LocatedProblem, type VariantScan } from './template-variant-scan';

/** The locale a translation file's name gives (`de-AT.json` → `de-AT`), or why the name is not one. */
export function translationLocale(name: string, template: Pick<Template, 'locale'>): { ok: true; locale: string } | { ok: false; problem: string } {
  const canonical = canonicalLocale(name);
  if (canonical === undefined) return { ok: false, problem: `"${name}" is not a BCP 47 language tag: a translation is named after its locale (de.json, de-AT.json, zh-Hant.json)` };
  if (canonical !== name) return { ok: false, problem: `name it ${canonical}.json, the canonical form of "${name}", as recipients' tags are matched in that form` };
  if (canonical === defaultLocaleOf(template)) {
    return { ok: false, problem: `is in ${canonical}, the template's default locale, whose texts are the template file's own: remove one of the two` };
  }
  return { ok: true, locale: canonical };
}

/**
 * Whether one translation is a whole variant of `template` that agrees with its default: the same channels, and in
 * each channel the same fields (a placeholder in `de` that `en` lacks, or one it drops, would render some
 * recipients' messages with a value others never see, and the limits were checked on the default's); its own
 * texts read as the default's are; and its own limits on the worst case (a Polish SMS is UCS-2 where the English
 * one is GSM-7). The figures come back for a translation that has no problem.
 */
export function checkTranslation(
  template: Template,
  defaultScan: VariantScan,
  locale: string,
  variant: TemplateVariant,
): { readonly problems: readonly LocatedProblem[]; readonly figures?: TemplateFigures } {
  const defaultLocale = defaultLocaleOf(template);
  const scan = scanVariant(variant, template.fields, template.bulk);
  const problems: LocatedProblem[] = [...scan.problems];
  for (const channel of CHANNELS) {
    const own = scan.fieldsByChannel.get(channel);
    const expected = defaultScan.fieldsByChannel.get(channel);
    if (own === undefined && expected !== undefined) problems.push({ path: channel, message: `is missing: the ${defaultLocale} variant has ${channel}, and a variant is a whole template` });
    if (own !== undefined && expected === undefined) problems.push({ path: channel, message: `is not in the ${defaultLocale} variant: every variant has the same channels` });
    if (own === undefined || expected === undefined || !scan.everyTextRead || !defaultScan.everyTextRead) continue;
    const extra = [...own].filter((field) => !expected.has(field));
    const lacking = [...expected].filter((field) => !own.has(field));
    if (extra.length > 0) problems.push({ path: channel, message: `uses ${braces(extra)}, which the ${defaultLocale} ${channel} does not: variants disagree on their fields` });
    if (lacking.length > 0) problems.push({ path: channel, message: `lacks ${braces(lacking)}, which the ${defaultLocale} ${channel} uses: variants disagree on their fields` });
  }
  if (problems.length > 0) return { problems };
  const figures = templateFigures({ ...template, translations: new Map([[locale, variant]]) }, locale);
  const limits = limitProblems(figures);
  return limits.length > 0 ? { problems: limits } : { problems: [], figures };
}

const braces = (fields: readonly string[]): string => fields.map((field) => `{{${field}}}`).join(', ');
