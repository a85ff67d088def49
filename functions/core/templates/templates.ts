import { refusedControlCharacter } from './control-characters';
import type { Channel } from '../event/idempotency-key';
import { isGsm7 } from './sms-segments';
import type { RenderedMessage } from './rendered-message';
import { withLanguage } from './html-language';
import { UNSUBSCRIBE_URL_FIELD, VARIANT_PARTS, type Template, type TemplateVariant } from './template-definition';
import { defaultLocaleOf, variantIn } from './template-locale';
import { writeValue, type ValueContext } from './value-formats';
import { fillPlaceholders, scanPlaceholders, type TemplatePiece } from './template-placeholders';

export type { Template } from './template-definition';

/** Validated templates by id (see `buildTemplateRegistry`). */
export type TemplateRegistry = ReadonlyMap<string, Template>;

export type TemplateValue = string | number | boolean | null;

/** A rendered channel variant: a message without its address. */
export type RenderedContent = WithoutAddress<RenderedMessage>;
type WithoutAddress<M> = M extends unknown ? Omit<M, 'to'> : never;

export type RenderResult =
  | { readonly ok: true; readonly content: RenderedContent }
  | { readonly ok: false; readonly reason: string };

export interface RenderOptions {
  /**
   * Whether a control character that the part it fills cannot carry fails the render. The template limits turn
   * it off: they still measure a push payload filled with control characters (6 bytes each once JSON-escaped),
   * a bound above anything that can be sent since control characters are refused.
   * @default true
   */
  readonly refuseControlCharacters?: boolean;
  /**
   * Which variant: a locale the template has (template-locale.ts resolves a recipient's tag to one).
   * @default the template's default locale
   */
  readonly locale?: string;
  /** The locale values with a `format` are written in. @default `locale` */
  readonly formatLocale?: string;
  /** The recipient's time zone, for `date`, `time` and `datetime` fields. @default UTC, named in the text */
  readonly timeZone?: string;
  /**
   * Whether values with a `format` are written by it. The template limits turn it off: they fill every field
   * with text of its declared maxLength, which bounds the written value too. @default true
   */
  readonly writeValues?: boolean;
}

/**
 * Renders the template's variant for `channel`, in `options.locale`'s texts: each `{{field}}` replaced by its value
 * (written by the field's `format`, if any, in the format locale). The HTML part says its language (html-language.ts). A missing template or channel variant,
 * a missing (or null) field, a value outside its declaration (longer than `maxLength`, or not GSM-7
 * when declared so), or a control character the part it fills cannot carry (control-characters.ts) is a permanent failure with a reason that names fields, never values; nothing is
 * rendered as an empty string. The HTML part escapes every inserted value (validation refuses the tags
 * that would not), and values are looked up in the declared fields only, never in inherited properties.
 */
export function renderTemplate(
  templates: TemplateRegistry,
  templateId: string,
  channel: Channel,
  data: Readonly<Record<string, TemplateValue>>,
  options: RenderOptions = {},
): RenderResult {
  const template = templates.get(templateId);
  if (!template) return { ok: false, reason: `MissingTemplate: no template "${templateId}"` };
  const texts = variantIn(template, options.locale);
  const locale = texts === template ? defaultLocaleOf(template) : options.locale!;
  const variant = texts[channel];
  if (!variant) return { ok: false, reason: `MissingTemplate: template "${templateId}" has no ${channel} variant` };
  const parts: [string, readonly TemplatePiece[]][] = [];
  for (const part of VARIANT_PARTS[channel]) {
    const text = (variant as Readonly<Record<string, unknown>>)[part];
    if (typeof text === 'string') parts.push([part, piecesOf(text)]);
  }

  // SES's own placeholder is not data: it is left as written, for SES to fill.
  const used = [...new Set(parts.flatMap(([, pieces]) => pieces.flatMap((p) => ('field' in p && p.field !== UNSUBSCRIBE_URL_FIELD ? [p.field] : []))))];
  const missing = used.filter((field) => !Object.hasOwn(data, field) || data[field] === null || data[field] === undefined);
  if (missing.length > 0) {
    return { ok: false, reason: `MissingTemplateField: template "${templateId}" needs ${missing.join(', ')}` };
  }
  // No prototype: a field may be called `constructor` or `__proto__` like any other.
  const view: Record<string, string> = Object.create(null) as Record<string, string>;
  view[UNSUBSCRIBE_URL_FIELD] = `{{${UNSUBSCRIBE_URL_FIELD}}}`;
  const valueContext: ValueContext = {
    locale: options.formatLocale ?? locale,
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    plainSpaces: channel === 'sms',
  };
  for (const field of used) {
    const declared = Object.hasOwn(template.fields, field) ? template.fields[field] : undefined;
    const written = declared && options.writeValues !== false ? writeValue(declared, data[field]!, valueContext) : { ok: true as const, text: String(data[field]) };
    if (!written.ok) return { ok: false, reason: `InvalidTemplateField: template "${templateId}" field ${field} ${written.problem}` };
    const value = written.text;
    if (declared && value.length > declared.maxLength) {
      return {
        ok: false,
        reason: `InvalidTemplateField: template "${templateId}" field ${field} is ${value.length} characters, more than its maxLength ${declared.maxLength}`,
      };
    }
    if (declared?.charset === 'gsm7' && !isGsm7(value)) {
      return { ok: false, reason: `InvalidTemplateField: template "${templateId}" field ${field} is not GSM-7 text (declared charset gsm7)` };
    }
    for (const [part, pieces] of options.refuseControlCharacters === false ? [] : parts) {
      const control = pieces.some((piece) => 'field' in piece && piece.field === field) ? refusedControlCharacter(value, part) : undefined;
      if (control !== undefined) {
        return { ok: false, reason: `InvalidTemplateField: template "${templateId}" field ${field} holds control character ${control}, which the ${channel} ${part} cannot carry` };
      }
    }
    view[field] = value;
  }

  // Each part rendered from the template's own typed variant (checked above): a required part is there by the schema.
  const fill = (text: string, html = false) => fillPlaceholders(piecesOf(text), view, html);
  return { ok: true, content: renderVariant(texts, channel, fill, locale) };
}

// Templates are a fixed set: each text is read once per process, not at every message.
const readTexts = new Map<string, readonly TemplatePiece[]>();
function piecesOf(text: string): readonly TemplatePiece[] {
  let pieces = readTexts.get(text);
  // Stryker disable next-line ConditionalExpression: the cache only saves reading a text again; scanning is pure, so a fresh read gives the same pieces
  if (!pieces) {
    const scan = scanPlaceholders(text);
    // A text validation refused renders as it stands (only a registry built without validation holds one).
    pieces = scan.ok ? scan.pieces : [{ text }];
    readTexts.set(text, pieces);
  }
  return pieces;
}

function renderVariant(template: TemplateVariant, channel: Channel, fill: (text: string, html?: boolean) => string, locale: string): RenderedContent {
  switch (channel) {
    case 'email': {
      const { subject, text, html } = template.email!;
      return { channel, subject: fill(subject), text: fill(text), ...(html !== undefined ? { html: withLanguage(fill(html, true), locale) } : {}) };
    }
    case 'sms':
      return { channel, text: fill(template.sms!.text) };
    case 'push': {
      const { title, body } = template.push!;
      return { channel, title: fill(title), text: fill(body) };
    }
  }
}
