import { CHANNELS } from '../event/idempotency-key';
import { validate } from '../schema';
import { TEMPLATE_ID, TemplateFileSchema, UNSUBSCRIBE_URL_FIELD, VARIANT_PARTS, type Template, type TemplateFile } from './template-definition';
import { limitProblems, templateFigures, type TemplateFigures } from './template-limits';
import { scanPlaceholders, type TemplatePiece } from './template-placeholders';
import { TemplateValidationError, type TemplateProblem } from './template-problems';
import type { TemplateRegistry } from './templates';

/** The outcome of checking a set of template files: the valid templates with their figures, and every problem. */
export interface TemplateCheck {
  readonly templates: readonly { readonly template: Template; readonly figures: TemplateFigures }[];
  readonly problems: readonly TemplateProblem[];
}

/** Suffix of a template file; the rest of its name is the template id. */
export const TEMPLATE_FILE_SUFFIX = '.json';

/**
 * Checks template files as a set: each file's name (the id), JSON and shape; every placeholder
 * declared in `fields` and every declared field used; no tag but `{{field}}`; and the channel limits
 * on the worst case the declarations allow (SMS parts, subject length, push payload size).
 * Every problem of every file is collected; none stops the check of the others.
 */
export function checkTemplateFiles(files: readonly TemplateFile[]): TemplateCheck {
  const templates: { template: Template; figures: TemplateFigures }[] = [];
  const problems: TemplateProblem[] = [];
  if (files.length === 0) problems.push({ file: '(none)', path: '', message: `no template files (*${TEMPLATE_FILE_SUFFIX}) were given` });
  for (const file of files) {
    const found = checkTemplateFile(file);
    problems.push(...found.problems.map((p) => ({ file: file.name, ...p })));
    if (found.valid) templates.push(found.valid);
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

/**
 * Where SES's unsubscribe link must and must not be. A bulk template's e-mail text and HTML each show it (CAN-SPAM
 * wants a working opt-out in the body; SES fills the placeholder only in those parts, at most twice each); no
 * other part has it (a subject or a text message would show it as written). A template that is not bulk has it
 * nowhere: its e-mail is sent without list management, so SES would leave the placeholder as written.
 */
function unsubscribeLinkProblems(bulk: boolean | undefined, channel: string, part: string, pieces: readonly TemplatePiece[]): string[] {
  const uses = pieces.filter((piece) => 'field' in piece && piece.field === UNSUBSCRIBE_URL_FIELD).length;
  const tag = `{{${UNSUBSCRIBE_URL_FIELD}}}`;
  const bodyPart = channel === 'email' && (part === 'text' || part === 'html');
  if (!bulk) return uses > 0 ? [`uses ${tag}, which only a bulk template ("bulk": true) may use: SES fills it only in list-managed e-mail`] : [];
  if (!bodyPart) return uses > 0 ? [`uses ${tag}; SES fills it only in an e-mail's text and HTML`] : [];
  if (uses === 0) return [`a bulk template's e-mail ${part} must show the unsubscribe link ${tag} (SES fills it with the contact's one-click unsubscribe URL)`];
  return uses > 2 ? [`uses ${tag} ${uses} times; SES fills only the first two`] : [];
}

type Found = {
  readonly valid?: { readonly template: Template; readonly figures: TemplateFigures };
  readonly problems: readonly { path: string; message: string }[];
};

function checkTemplateFile(file: TemplateFile): Found {
  if (!file.name.endsWith(TEMPLATE_FILE_SUFFIX)) return { problems: [{ path: '', message: `a template file name ends in ${TEMPLATE_FILE_SUFFIX}` }] };
  const id = file.name.slice(0, -TEMPLATE_FILE_SUFFIX.length);
  if (!TEMPLATE_ID.test(id)) {
    return { problems: [{ path: '', message: `"${id}" is not a template id: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch (error) {
    return { problems: [{ path: '', message: `is not JSON (${(error as Error).message})` }] };
  }
  const parsed = validate(TemplateFileSchema, json);
  if (!parsed.success) return { problems: parsed.problems };
  const template: Template = { id, ...parsed.output };

  const problems: { path: string; message: string }[] = [];
  const used = new Set<string>();
  let everyTextRead = true;
  for (const channel of CHANNELS) {
    const variant = template[channel] as Readonly<Record<string, unknown>> | undefined;
    if (!variant) continue;
    for (const part of VARIANT_PARTS[channel]) {
      const text = variant[part];
      if (typeof text !== 'string') continue;
      const path = `${channel}.${part}`;
      const scan = scanPlaceholders(text);
      if (!scan.ok) {
        problems.push(...scan.problems.map((message) => ({ path, message })));
        everyTextRead = false;
        continue;
      }
      for (const field of scan.fields) {
        if (field === UNSUBSCRIBE_URL_FIELD) continue;
        used.add(field);
        if (!Object.hasOwn(template.fields, field)) problems.push({ path, message: `uses {{${field}}}, which is not declared in fields` });
      }
      problems.push(...unsubscribeLinkProblems(template.bulk, channel, part, scan.pieces).map((message) => ({ path, message })));
    }
  }
  if (Object.hasOwn(template.fields, UNSUBSCRIBE_URL_FIELD)) {
    problems.push({ path: `fields.${UNSUBSCRIBE_URL_FIELD}`, message: 'is SES\'s placeholder for the unsubscribe URL, not a data field: remove the declaration' });
  }
  // A text that could not be read may use any field: only then is an unused declaration news.
  for (const field of everyTextRead ? Object.keys(template.fields) : []) {
    if (!used.has(field)) problems.push({ path: `fields.${field}`, message: 'is declared but no variant uses it' });
  }
  if (problems.length > 0) return { problems };
  const figures = templateFigures(template);
  const limits = limitProblems(figures);
  return limits.length > 0 ? { problems: limits } : { valid: { template, figures }, problems: [] };
}
