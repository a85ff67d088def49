import { validate } from '../schema';
import {
  DEFAULT_SMS_MAX_SEGMENTS,
  TEMPLATE_ID,
  TemplateFileSchema,
  TranslationFileSchema,
  UNSUBSCRIBE_URL_FIELD,
  type Template,
  type TemplateFile,
  type TemplateVariant,
} from '../templates/template-definition';
import { canonicalLocale } from '../event/recipient-locale';
import { limitProblems, templateFigures, type TemplateFigures } from './template-limits';
import { defaultLocaleOf } from '../templates/template-locale';
import { TemplateValidationError, type TemplateProblem } from './template-problems';
import { checkTranslation, translationLocale } from './template-translations';
import { scanVariant, type LocatedProblem, type VariantScan } from './template-variant-scan';
import type { TemplateRegistry } from '../templates/templates';

/** One valid template with the worst case of each of its variants. */
export interface CheckedTemplate {
  readonly template: Template;
  /** The worst case of the template's own texts (its default locale). */
  readonly figures: TemplateFigures;
  /** The worst case of each translation, by locale. @default none */
  readonly translationFigures?: ReadonlyMap<string, TemplateFigures>;
}

/** The outcome of checking a set of template files: the valid templates with their figures, and every problem. */
export interface TemplateCheck {
  readonly templates: readonly CheckedTemplate[];
  readonly problems: readonly TemplateProblem[];
}

/** Suffix of a template file; the rest of its name is the template id. */
export const TEMPLATE_FILE_SUFFIX = '.json';

/**
 * Checks template files as a set. A template file (`<id>.json`): its name (the id), JSON and shape; every
 * placeholder declared in `fields` and every declared field used; no tag but `{{field}}`; and the channel limits
 * on the worst case the declarations allow (SMS parts, subject length, push payload size). A translation
 * (`<id>/<tag>.json`): a template file to translate, a canonical tag other than the default, and the checks of
 * {@link checkTranslation}. Every problem of every file is collected; none stops the check of the others, and a
 * template with any problem in any of its files is not valid.
 */
export function checkTemplateFiles(files: readonly TemplateFile[]): TemplateCheck {
  const problems: TemplateProblem[] = [];
  if (files.length === 0) problems.push({ file: '(none)', path: '', message: `no template files (*${TEMPLATE_FILE_SUFFIX}) were given` });
  const found = new Map<string, Found>();
  const translations: { file: TemplateFile; id: string; tagName: string }[] = [];
  for (const file of files) {
    const slash = file.name.indexOf('/');
    if (slash < 0) {
      const checked = checkTemplateFile(file);
      problems.push(...checked.problems.map((p) => ({ file: file.name, ...p })));
      found.set(file.name.slice(0, -TEMPLATE_FILE_SUFFIX.length), checked);
    } else if (file.name.endsWith(TEMPLATE_FILE_SUFFIX) && file.name.indexOf('/', slash + 1) < 0) {
      translations.push({ file, id: file.name.slice(0, slash), tagName: file.name.slice(slash + 1, -TEMPLATE_FILE_SUFFIX.length) });
    } else {
      problems.push({ file: file.name, path: '', message: `a translation is <templateId>/<locale>${TEMPLATE_FILE_SUFFIX}, one folder deep` });
    }
  }
  const variants = new Map<string, Map<string, TemplateVariant>>();
  const figuresByTemplate = new Map<string, Map<string, TemplateFigures>>();
  const failed = new Set<string>();
  for (const { file, id, tagName } of translations) {
    const base = found.get(id);
    if (!base) {
      problems.push({
        file: file.name,
        path: '',
        message: `template "${id}" has no variant for its default locale: ${id}${TEMPLATE_FILE_SUFFIX} (the default locale's texts, the fields and settings) is missing`,
      });
      continue;
    }
    // The template file's own problems are reported already; a translation of it can be checked only against a valid one.
    if (!base.valid) continue;
    const checked = checkTranslationFile(file, tagName, base.valid.template, base.scan!);
    problems.push(...checked.problems.map((p) => ({ file: file.name, ...p })));
    if (!checked.valid) {
      failed.add(id);
      continue;
    }
    const { locale, variant, figures } = checked.valid;
    if (!variants.has(id)) variants.set(id, new Map());
    if (!figuresByTemplate.has(id)) figuresByTemplate.set(id, new Map());
    variants.get(id)!.set(locale, variant);
    figuresByTemplate.get(id)!.set(locale, figures);
  }
  const templates: CheckedTemplate[] = [];
  for (const [id, { valid }] of found) {
    if (!valid || failed.has(id)) continue;
    const own = variants.get(id);
    templates.push(own ? { template: { ...valid.template, translations: own }, figures: valid.figures, translationFigures: figuresByTemplate.get(id)! } : valid);
  }
  return { templates, problems };
}

/**
 * The registry of valid templates, for the sender.
 * @throws TemplateValidationError listing every problem when any file is invalid.
 */
export function buildTemplateRegistry(files: readonly TemplateFile[]): TemplateRegistry {
  const { templates, problems } = checkTemplateFiles(files);
  if (problems.length > 0) throw new TemplateValidationError(problems);
  return new Map(templates.map(({ template }) => [template.id, template]));
}

type Found = {
  readonly valid?: { readonly template: Template; readonly figures: TemplateFigures };
  /** How the template's own texts read: what its translations are compared with. */
  readonly scan?: VariantScan;
  readonly problems: readonly LocatedProblem[];
};

function checkTemplateFile(file: TemplateFile): Found {
  if (!file.name.endsWith(TEMPLATE_FILE_SUFFIX)) return { problems: [{ path: '', message: `a template file name ends in ${TEMPLATE_FILE_SUFFIX}` }] };
  const id = file.name.slice(0, -TEMPLATE_FILE_SUFFIX.length);
  if (!TEMPLATE_ID.test(id)) {
    return { problems: [{ path: '', message: `"${id}" is not a template id: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128` }] };
  }
  const json = parseJson(file.text);
  if (!json.ok) return { problems: [json.problem] };
  const parsed = validate(TemplateFileSchema, json.value);
  if (!parsed.success) return { problems: parsed.problems };
  const template: Template = { id, ...parsed.output };

  const problems: LocatedProblem[] = [];
  const locale = defaultLocaleOf(template);
  if (canonicalLocale(locale) !== locale) {
    const canonical = canonicalLocale(locale);
    problems.push({ path: 'locale', message: canonical ? `write "${canonical}", the canonical form of "${locale}"` : `"${locale}" is not a BCP 47 language tag (en, de, pt-BR)` });
  }
  const scan = scanVariant(template, template.fields, template.bulk);
  problems.push(...scan.problems);
  if (Object.hasOwn(template.fields, UNSUBSCRIBE_URL_FIELD)) {
    problems.push({ path: `fields.${UNSUBSCRIBE_URL_FIELD}`, message: 'is SES\'s placeholder for the unsubscribe URL, not a data field: remove the declaration' });
  }
  // A text that could not be read may use any field: only then is an unused declaration news.
  const used = new Set([...scan.fieldsByChannel.values()].flatMap((fields) => [...fields]));
  for (const field of scan.everyTextRead ? Object.keys(template.fields) : []) {
    if (!used.has(field)) problems.push({ path: `fields.${field}`, message: 'is declared but no variant uses it' });
  }
  if (problems.length > 0) return { problems };
  const figures = templateFigures(template);
  const limits = limitProblems(figures);
  return limits.length > 0 ? { problems: limits } : { valid: { template, figures }, scan, problems: [] };
}

function checkTranslationFile(
  file: TemplateFile,
  tagName: string,
  template: Template,
  defaultScan: VariantScan,
): { readonly valid?: { locale: string; variant: TemplateVariant; figures: TemplateFigures }; readonly problems: readonly LocatedProblem[] } {
  const named = translationLocale(tagName, template);
  if (!named.ok) return { problems: [{ path: '', message: named.problem }] };
  const json = parseJson(file.text);
  if (!json.ok) return { problems: [json.problem] };
  const parsed = validate(TranslationFileSchema, json.value);
  if (!parsed.success) return { problems: parsed.problems };
  const { description: _description, sms, ...rest } = parsed.output;
  const maxSegments = sms?.maxSegments ?? template.sms?.maxSegments ?? DEFAULT_SMS_MAX_SEGMENTS;
  const variant: TemplateVariant = { ...rest, ...(sms ? { sms: { text: sms.text, maxSegments } } : {}) };
  const checked = checkTranslation(template, defaultScan, named.locale, variant);
  return checked.figures ? { valid: { locale: named.locale, variant, figures: checked.figures }, problems: [] } : { problems: checked.problems };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: LocatedProblem } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: { path: '', message: `is not JSON (${(error as Error).message})` } };
  }
}
