import * as v from 'valibot';
import { jsonRecord, jsonStrictObject } from '../json-objects';

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
const FieldSchema = jsonStrictObject({
  maxLength: count(MAX_FIELD_LENGTH),
  charset: v.optional(v.picklist(['gsm7', 'unicode']), 'unicode'),
  description,
});

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
    email: v.optional(jsonStrictObject({ subject: text, text, html: v.optional(text) })),
    sms: v.optional(jsonStrictObject({ text, maxSegments: v.optional(count(MAX_SMS_SEGMENTS), DEFAULT_SMS_MAX_SEGMENTS) })),
    push: v.optional(jsonStrictObject({ title: text, body: text })),
  }),
  v.partialCheck(
    [['email'], ['sms'], ['push']],
    (t) => t.email !== undefined || t.sms !== undefined || t.push !== undefined,
    'a template needs at least one of email, sms, push',
  ),
);

export type TemplateFileContent = v.InferOutput<typeof TemplateFileSchema>;
export type TemplateField = TemplateFileContent['fields'][string];

/** A template that passed validation: its id and its content with defaults applied. */
export interface Template extends Omit<TemplateFileContent, 'bulk'> {
  readonly id: string;
  /** A template for bulk classes (see the schema). @default false */
  readonly bulk?: boolean;
}

/** A template file as read from disk or embedded in a bundle: its name (`order-shipped.json`) and its text. */
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
