import * as z from './schema';

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

const text = z.string().check(z.minLength(1), z.maxLength(100_000));

/**
 * One data field a template uses. `maxLength` (in UTF-16 code units, as JavaScript counts) bounds
 * every value at send time, which is what lets the channel limits be checked before any event exists.
 * `charset: gsm7` promises values in the GSM 03.38 alphabet, so an SMS stays 160/153 characters a part.
 */
const FieldSchema = z.strictObject({
  maxLength: z.number().check(z.int(), z.minimum(1), z.maximum(MAX_FIELD_LENGTH)),
  charset: z._default(z.enum(['gsm7', 'unicode']), 'unicode'),
  description: z.optional(z.string().check(z.maxLength(1000))),
});

/** The JSON a template file holds (`templates/<id>.json`). Unknown keys are refused, so a typo is not ignored. */
export const TemplateFileSchema = z
  .strictObject({
    description: z.optional(z.string().check(z.maxLength(1000))),
    fields: z._default(
      z.record(z.string().check(z.regex(FIELD_NAME, 'field names are letters, digits and _ (not first), at most 64')), FieldSchema),
      {},
    ),
    email: z.optional(z.strictObject({ subject: text, text, html: z.optional(text) })),
    sms: z.optional(
      z.strictObject({
        text,
        maxSegments: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_SMS_SEGMENTS)), DEFAULT_SMS_MAX_SEGMENTS),
      }),
    ),
    push: z.optional(z.strictObject({ title: text, body: text })),
  })
  .check(
    z.refine((t) => t.email !== undefined || t.sms !== undefined || t.push !== undefined, {
      message: 'a template needs at least one of email, sms, push',
    }),
  );

export type TemplateFileContent = z.infer<typeof TemplateFileSchema>;
export type TemplateField = TemplateFileContent['fields'][string];

/** A template that passed validation: its id and its content with defaults applied. */
export interface Template extends TemplateFileContent {
  readonly id: string;
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
