import type { Channel } from '../event/idempotency-key';
import { largestPushPayloadBytes, PUSH_PAYLOAD_MAX_BYTES } from '../templates/push-payload';
import { smsSize, type SmsEncoding } from '../templates/sms-segments';
import type { Template, TemplateField } from '../templates/template-definition';
import { variantIn } from '../templates/template-locale';
import { renderTemplate, type RenderedContent } from '../templates/templates';

/**
 * Longest subject a template may produce, in UTF-16 code units. Inboxes show 40 to 80 characters, so
 * this is a sanity bound, not a display one: it keeps a subject well inside RFC 5322's 998-character
 * line even once RFC 2047 encodes it as UTF-8 base64 (up to ~5.4 characters per character).
 */
export const EMAIL_SUBJECT_MAX_CHARS = 150;

/** The largest each channel's content can get, with every field at its declared maxLength. */
export interface TemplateFigures {
  readonly sms?: { readonly encoding: SmsEncoding; readonly segments: number; readonly maxSegments: number };
  readonly email?: { readonly subjectChars: number };
  readonly push?: { readonly payloadBytes: number };
}

/** A limit a template can exceed, located in its file. */
export interface LimitProblem {
  readonly path: string;
  readonly message: string;
}

/*
 * Worst-case values, each exactly `maxLength` long (lengths count UTF-16 code units, as event data does):
 * - SMS: a non-GSM character in a `unicode` field forces UCS-2 for the whole text, which is always more
 *   parts than GSM-7 for the same length; surrogate pairs are also tried, in both alignments, since a pair
 *   is never split across parts and can waste a unit in each. A `gsm7` field gets extension characters
 *   (two septets each, never split either).
 * - Push: a control character is 6 bytes once JSON-escaped (`\u0001`), the most any unit can cost;
 *   a `gsm7` character costs at most 3 bytes (`€` in UTF-8).
 */
const BMP_NON_GSM = 'あ';
const SURROGATE_PAIR = '😀';
const GSM_EXTENSION = '€';
const JSON_ESCAPED_CONTROL = '\u0001';

type Fill = (field: TemplateField) => string;
/** `length` units of surrogate pairs, starting with a single unit when `shifted` (a pair's place in a part depends on what precedes it). */
const pairs = (length: number, shifted: boolean): string => {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: length is a declared maxLength, at least 1 by the schema, so it is never 0 here
  const lead = shifted && length > 0 ? BMP_NON_GSM : '';
  const rest = length - lead.length;
  return lead + SURROGATE_PAIR.repeat(Math.floor(rest / 2)) + BMP_NON_GSM.repeat(rest % 2);
};
/** The fills tried for a `unicode` field in an SMS; the text's worst case is the one needing the most parts. */
const UNICODE_SMS_FILLS: readonly ((length: number) => string)[] = [
  (length) => BMP_NON_GSM.repeat(length),
  (length) => pairs(length, false),
  (length) => pairs(length, true),
];

/**
 * Figures of a template's variant in `locale` (a locale it has; default: its own texts) whose placeholders are all
 * declared (check that first). Each variant has its own: a Polish or Greek text is UCS-2 where the German is GSM-7.
 */
export function templateFigures(template: Template, locale?: string): TemplateFigures {
  const figures: { -readonly [K in keyof TemplateFigures]: TemplateFigures[K] } = {};
  const variant = variantIn(template, locale);
  const worstCase = <C extends Channel>(channel: C, fill: Fill) => worstCaseIn(template, locale, channel, fill);
  if (variant.sms) {
    const sizes = UNICODE_SMS_FILLS.map((unicodeFill) =>
      smsSize(worstCase('sms', (f) => (f.charset === 'gsm7' ? GSM_EXTENSION.repeat(f.maxLength) : unicodeFill(f.maxLength))).text),
    );
    // Stryker disable next-line EqualityOperator: sizes with equal segments are equal: a unicode field makes every fill UCS-2, and without one the fills are the same text
    const worst = sizes.reduce((a, b) => (b.segments > a.segments ? b : a));
    figures.sms = { encoding: worst.encoding, segments: worst.segments, maxSegments: variant.sms.maxSegments };
  }
  if (variant.email) {
    figures.email = { subjectChars: worstCase('email', (f) => 'x'.repeat(f.maxLength)).subject.length };
  }
  if (variant.push) {
    const push = worstCase('push', (f) => (f.charset === 'gsm7' ? GSM_EXTENSION : JSON_ESCAPED_CONTROL).repeat(f.maxLength));
    figures.push = { payloadBytes: largestPushPayloadBytes(push.title, push.text) };
  }
  return figures;
}

/** The channel's variant in `locale` rendered with every declared field filled by `fill` (the written text of a formatted one). */
function worstCaseIn<C extends Channel>(template: Template, locale: string | undefined, channel: C, fill: Fill): Extract<RenderedContent, { channel: C }> {
  const data = Object.fromEntries(Object.entries(template.fields).map(([name, field]) => [name, fill(field)]));
  const result = renderTemplate(new Map([[template.id, template]]), template.id, channel, data, {
    refuseControlCharacters: false,
    writeValues: false,
    ...(locale !== undefined ? { locale } : {}),
  });
  // Unreachable for a template whose placeholders are declared: every field gets a value within its declaration.
  if (!result.ok) throw new Error(`the worst case of template "${template.id}" did not render: ${result.reason}`);
  return result.content as Extract<RenderedContent, { channel: C }>;
}

/** Every channel limit the template's worst case exceeds. */
export function limitProblems(figures: TemplateFigures): LimitProblem[] {
  const problems: LimitProblem[] = [];
  if (figures.sms && figures.sms.segments > figures.sms.maxSegments) {
    problems.push({
      path: 'sms.text',
      message:
        `can take ${figures.sms.segments} SMS parts (${figures.sms.encoding}) with every field at its maxLength; ` +
        `sms.maxSegments allows ${figures.sms.maxSegments}`,
    });
  }
  if (figures.email && figures.email.subjectChars > EMAIL_SUBJECT_MAX_CHARS) {
    problems.push({
      path: 'email.subject',
      message: `can be ${figures.email.subjectChars} characters with every field at its maxLength; the limit is ${EMAIL_SUBJECT_MAX_CHARS}`,
    });
  }
  if (figures.push && figures.push.payloadBytes > PUSH_PAYLOAD_MAX_BYTES) {
    problems.push({
      path: 'push',
      message:
        `the platform payload can be ${figures.push.payloadBytes} bytes with every field at its maxLength; ` +
        `APNs and FCM take at most ${PUSH_PAYLOAD_MAX_BYTES}`,
    });
  }
  return problems;
}
