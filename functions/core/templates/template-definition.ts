import * as v from 'valibot';
import { jsonRecord, jsonStrictObject } from '../json-objects';
import { LOCALE_MAX_LENGTH } from '../event/recipient-locale';

/** The locale of a template file that does not name one. */
export const DEFAULT_TEMPLATE_LOCALE = 'en';

/** How a field's value may be written in the message's locale (see value-formats.ts). */
export const VALUE_FORMATS = ['number', 'currency', 'date', 'time', 'datetime'] as const;
export type ValueFormat = (typeof VALUE_FORMATS)[number];

/** A template's id is its file name without `.json`; events name it in `templateId`. */
export const TEMPLATE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A data field name, as placeholders and event `data` use it. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Longest value a field may declare: an event's string values are at most this long anyway. */
export const MAX_FIELD_LENGTH = 4096;
/** SMS parts a template may allow; SNS refuses an SMS publish over 1,600 characters (10 GSM-7 parts are 1,530). */
export const MAX_SMS_SEGMENTS = 10;
/** SMS parts a template allows unless it says otherwise: each part is billed, and long texts are split. */
export const DEFAULT_SMS_MAX_SEGMENTS = 3;

const text = v.pipe(v.string(), v.minLength(1), v.maxLength(100_000));
const description = v.optional(v.pipe(v.string(), v.maxLength(1000)));
const count = (max: number) => v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(max));

/**
 * One data field a template uses. `maxLength` (in UTF-16 code units, as JavaScript counts) bounds
 * every value at send time, which is what lets the channel limits be checked before any event exists.
 * `charset: gsm7` promises values in the GSM 03.38 alphabet, so an SMS stays 160/153 characters a part.
 */
const FieldSchema = v.pipe(
  jsonStrictObject({
    maxLength: count(MAX_FIELD_LENGTH),
    charset: v.optional(v.picklist(['gsm7', 'unicode']), 'unicode'),
    /**
     * How the value is written in the message's locale, with the platform's Intl (value-formats.ts): `number`,
     * `currency` (with `currency`), `date`, `time` or `datetime` (an ISO 8601 time with offset, or epoch ms).
     * `maxLength` then bounds the written text. @default none: the value as given
     */
    format: v.optional(v.picklist(VALUE_FORMATS)),
    /** The ISO 4217 code of a `currency` field's amounts (`EUR`). */
    currency: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'a currency is an ISO 4217 code such as EUR'))),
    description,
  }),
  v.check((f) => (f.format === 'currency') === (f.currency !== undefined), 'a field has a currency exactly when its format is currency'),
);

/** What a single-variant template file and a translation share: the texts of each channel. */
const variantEntries = {
  email: v.optional(jsonStrictObject({ subject: text, text, html: v.optional(text) })),
  sms: v.optional(jsonStrictObject({ text, maxSegments: v.optional(count(MAX_SMS_SEGMENTS), DEFAULT_SMS_MAX_SEGMENTS) })),
  push: v.optional(jsonStrictObject({ title: text, body: text })),
};
const SOME_CHANNEL = 'a template needs at least one of email, sms, push';
const hasChannel = (t: { email?: unknown; sms?: unknown; push?: unknown }): boolean => t.email !== undefined || t.sms !== undefined || t.push !== undefined;

/**
 * SES's placeholder for a list-managed e-mail's unsubscribe URL: SES fills it in the text and HTML parts (its
 * first two places in each) when the e-mail is sent with `ListManagementOptions`; elsewhere it stays as written.
 * Templates may use it without declaring it; the renderer leaves it for SES.
 */
export const UNSUBSCRIBE_URL_FIELD = 'amazonSESUnsubscribeUrl';

/** The JSON a template file holds (`templates/<id>.json`). Unknown keys are refused, so a typo is not ignored. */
export const TemplateFileSchema = v.pipe(
  jsonStrictObject({
    description,
    /**
     * A template for bulk classes (marketing): its e-mail puts SES's unsubscribe link in the text and the HTML
     * (see template-registry.ts), and only bulk classes may use it. @default false
     */
    bulk: v.optional(v.boolean(), false),
    fields: v.optional(
      jsonRecord(v.pipe(v.string(), v.regex(FIELD_NAME, 'field names are letters, digits and _ (not first), at most 64')), FieldSchema),
      {},
    ),
    /**
     * The language this file's texts are written in (a canonical BCP 47 tag): the template's default locale,
     * where every recipient's chain ends. Translations are `<id>/<tag>.json` beside the file. @default "en"
     */
    locale: v.optional(v.pipe(v.string(), v.maxLength(LOCALE_MAX_LENGTH)), DEFAULT_TEMPLATE_LOCALE),
    ...variantEntries,
  }),
  v.partialCheck([['email'], ['sms'], ['push']], hasChannel, SOME_CHANNEL),
);

/**
 * A translation (`templates/<id>/<tag>.json`): a whole variant of the template in one more locale, each channel's
 * texts and nothing else. Fields, `bulk` and the default locale are the template file's.
 */
export const TranslationFileSchema = v.pipe(
  jsonStrictObject({
    description,
    ...variantEntries,
    /** `maxSegments` is the template file's unless the translation says otherwise (a Greek text may be allowed more parts). */
    sms: v.optional(jsonStrictObject({ text, maxSegments: v.optional(count(MAX_SMS_SEGMENTS)) })),
  }),
  v.partialCheck([['email'], ['sms'], ['push']], hasChannel, SOME_CHANNEL),
);

export type TemplateFileContent = v.InferOutput<typeof TemplateFileSchema>;
export type TemplateField = TemplateFileContent['fields'][string];
/** One locale's texts of a template: what a translation file holds, and what the template file holds for its own locale. */
export type TemplateVariant = Pick<TemplateFileContent, 'email' | 'sms' | 'push'>;

/** A template that passed validation: its id and its content with defaults applied. */
export interface Template extends Omit<TemplateFileContent, 'bulk' | 'locale'> {
  readonly id: string;
  /** A template for bulk classes (see the schema). @default false */
  readonly bulk?: boolean;
  /** The locale of the template's own texts, and its default locale. @default DEFAULT_TEMPLATE_LOCALE */
  readonly locale?: string;
  /** Every other locale's variant, by canonical tag. @default none */
  readonly translations?: ReadonlyMap<string, TemplateVariant>;
}

/** A template file as read from disk or embedded in a bundle: its name (`order-shipped.json`, or a translation's `order-shipped/de.json`) and its text. */
export interface TemplateFile {
  readonly name: string;
  readonly text: string;
}

/** The parts of each channel's variant that hold text with placeholders, in rendering order. */
export const VARIANT_PARTS = {
  email: ['subject', 'text', 'html'],
  sms: ['text'],
  push: ['title', 'body'],
} as const;
