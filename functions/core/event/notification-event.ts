import * as v from 'valibot';
import { InvalidEventError } from '../errors';
import { EventBridgeSchema, SnsSqsNotificationSchema } from './event-envelopes';
import { CHANNELS } from './idempotency-key';
import { jsonObject, jsonRecord } from '../json-objects';
import { describeProblems, validate } from '../schema';
import { ISO_DATETIME_MAX_LENGTH, isoDatetime, wellFormed, wellFormedString } from './string-formats';
import { canonicalTimeZone, isTimeZone } from './time-zone-name';
import { unknownEventFields } from './unknown-event-fields';

/** Largest SQS body we accept; anything larger is dead-lettered, never half-processed. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Most messages one event may fan out to; keeps one record's work bounded. */
export const MAX_MESSAGES_PER_EVENT = 100;
/** Problems a refusal lists: the first few say what to fix, and a dead letter's attribute stays short. */
const MAX_PROBLEMS = 5;

// Every string an event carries is well-formed Unicode, or the event is refused whole: no channel can carry a
// lone surrogate, and each message would fail alike. Control characters are decided per message (templates.ts).
const idString = v.pipe(v.string(), v.minLength(1), v.maxLength(256), wellFormed());
const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max), wellFormed());
const optionalText = (max: number) => v.optional(v.pipe(v.string(), v.maxLength(max), wellFormed()));

// Addresses are only shape-checked here (strings); whether each is a valid email, E.164
// number or endpoint ARN is decided per message, so one bad recipient fails alone.
const RecipientSchema = v.pipe(
  jsonObject({
    recipientId: idString,
    email: optionalText(320),
    phone: optionalText(32),
    pushEndpointArn: optionalText(1024),
    /**
     * The recipient's time zone, for quiet hours (IANA, as the platform's Intl knows it), handed on in the platform's
     * own spelling whatever case the producer wrote it in. @default from the number's country, else the stack's
     */
    timeZone: v.optional(
      v.pipe(v.string(), v.check(isTimeZone, 'must be an IANA time zone such as America/New_York'), v.transform((zone) => canonicalTimeZone(zone)!)),
    ),
    /**
     * The recipient's language, a BCP 47 tag (`de-AT`, `pt-BR`, `zh-Hant-TW`): which variant of the template they get
     * (template-locale.ts). Read as given and never a reason to refuse the event: a missing, ill-formed, too long
     * or unknown tag sends in the template's default locale, counted as `LocaleFallback` (recipient-locale.ts).
     * Never part of the message's key. @default the template's default locale
     */
    locale: v.optional(v.unknown()),
    /** Channels each sent on their own, whatever becomes of the others. May be empty or left out when `fallback` is given. @default [] */
    channels: v.optional(v.pipe(v.array(v.picklist(CHANNELS)), v.maxLength(CHANNELS.length)), []),
    /**
     * Channels tried in order, each next one only when the one before ended certainly undelivered
     * (docs/design/fallback.md): `["push", "sms", "email"]`. None in `channels`, each with its address. @default none
     */
    fallback: v.optional(v.pipe(v.array(v.picklist(CHANNELS)), v.minLength(1), v.maxLength(CHANNELS.length))),
  }),
  v.forward(
    v.partialCheck([['channels']], (r) => new Set(r.channels).size === r.channels.length, 'channels must not repeat'),
    ['channels'],
  ),
  v.forward(
    v.partialCheck([['fallback']], (r) => r.fallback === undefined || new Set(r.fallback).size === r.fallback.length, 'fallback must not repeat a channel'),
    ['fallback'],
  ),
  v.forward(
    v.partialCheck([['channels'], ['fallback']], (r) => r.channels.length > 0 || r.fallback !== undefined, 'channels must not be empty unless fallback is given'),
    ['channels'],
  ),
  v.forward(
    v.partialCheck(
      [['channels'], ['fallback']],
      (r) => !r.fallback?.some((channel) => r.channels.includes(channel)),
      'a channel is in both channels and fallback (each is sent on its own in channels, or in turn in fallback, not both)',
    ),
    ['fallback'],
  ),
  v.forward(
    v.partialCheck(
      [['fallback'], ['email'], ['phone'], ['pushEndpointArn']],
      (r) => (r.fallback ?? []).every((channel) => hasAddressField(r, channel)),
      'a fallback channel has no address (email for email, phone for sms, pushEndpointArn for push)',
    ),
    ['fallback'],
  ),
);

/** Whether the recipient names an address for `channel` at all (its form is checked per message). */
function hasAddressField(recipient: { readonly email?: string; readonly phone?: string; readonly pushEndpointArn?: string }, channel: (typeof CHANNELS)[number]): boolean {
  const field = channel === 'email' ? recipient.email : channel === 'sms' ? recipient.phone : recipient.pushEndpointArn;
  return field !== undefined && field !== '';
}

const TemplateValue = v.union([v.pipe(v.string(), v.maxLength(4096), wellFormed()), v.number(), v.boolean(), v.null()]);

/** The business event a producer publishes: one event, one or more messages. */
export const NotificationEventSchema = v.pipe(
  jsonObject({
    eventId: idString,
    // Stored on every ledger row: bounded, as every producer string that reaches a row (a row's size never depends on the producer).
    occurredAt: v.pipe(v.string(), v.maxLength(ISO_DATETIME_MAX_LENGTH), isoDatetime({ offset: true })),
    type: text(128),
    templateId: text(128),
    messageClass: text(64),
    data: v.optional(jsonRecord(wellFormedString(), TemplateValue), {}),
    recipients: v.pipe(v.array(RecipientSchema), v.minLength(1), v.maxLength(MAX_MESSAGES_PER_EVENT)),
  }),
  // Partial checks: each runs once the fields it reads are valid, whatever else is wrong.
  v.forward(
    v.partialCheck(
      [['recipients', '$', 'recipientId']],
      (e) => new Set(e.recipients.map((r) => r.recipientId)).size === e.recipients.length,
      'recipientId must be unique within an event',
    ),
    ['recipients'],
  ),
  v.forward(
    v.partialCheck(
      [['recipients', '$', 'channels'], ['recipients', '$', 'fallback']],
      // A fallback chain counts whole: each of its channels may become a message.
      (e) => e.recipients.reduce((n, r) => n + r.channels.length + (r.fallback?.length ?? 0), 0) <= MAX_MESSAGES_PER_EVENT,
      `an event may fan out to at most ${MAX_MESSAGES_PER_EVENT} messages`,
    ),
    ['recipients'],
  ),
);

export type NotificationEvent = v.InferOutput<typeof NotificationEventSchema>;
export type Recipient = NotificationEvent['recipients'][number];

/** How the event reached the queue; logged, never used for identity. */
export type EventEnvelope = 'raw' | 'sns' | 'eventbridge';

export interface ParsedEvent {
  readonly event: NotificationEvent;
  readonly envelope: EventEnvelope;
  /** The payload's fields the schema does not know, by name (`unknownEventFields`); dropped from `event`. */
  readonly unknownFields: readonly string[];
}

/**
 * Parses an SQS message body into a notification event. Accepts the raw event, an SNS
 * notification envelope (subscription without raw message delivery) and an EventBridge
 * event (rule target). Identity always comes from the event's own `eventId`, never from
 * the envelope's `MessageId`/`id`.
 *
 * @throws InvalidEventError with a reason a person can act on.
 */
export function parseNotificationBody(body: string, maxBodyBytes = DEFAULT_MAX_BODY_BYTES): ParsedEvent {
  const size = Buffer.byteLength(body, 'utf8');
  if (size > maxBodyBytes) {
    throw new InvalidEventError('BodyTooLarge', `body is ${size} bytes, limit is ${maxBodyBytes}`);
  }
  const json = parseJson(body, 'body');
  const { payload, envelope } = unwrapEnvelope(json);
  const result = validate(NotificationEventSchema, payload);
  if (!result.success) throw new InvalidEventError('SchemaViolation', describeProblems(result.problems, MAX_PROBLEMS));
  return { event: result.output, envelope, unknownFields: unknownEventFields(NotificationEventSchema, payload) };
}

function unwrapEnvelope(json: unknown): { payload: unknown; envelope: EventEnvelope } {
  if (isObject(json) && json.Type === 'Notification' && 'TopicArn' in json) {
    const sns = validate(SnsSqsNotificationSchema, json);
    if (!sns.success) throw new InvalidEventError('SchemaViolation', `SNS envelope: ${describeProblems(sns.problems, MAX_PROBLEMS)}`);
    return { payload: parseJson(sns.output.Message, 'SNS Message'), envelope: 'sns' };
  }
  if (isObject(json) && 'detail-type' in json && 'detail' in json) {
    const eventBridge = validate(EventBridgeSchema, json);
    if (!eventBridge.success) {
      throw new InvalidEventError('SchemaViolation', `EventBridge envelope: ${describeProblems(eventBridge.problems, MAX_PROBLEMS)}`);
    }
    return { payload: eventBridge.output.detail, envelope: 'eventbridge' };
  }
  return { payload: json, envelope: 'raw' };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidEventError('NotJson', `${what} is not JSON (${withoutQuotedText((error as Error).message)})`);
  }
}

/**
 * V8 quotes the text around an unexpected token (`Unexpected token 'b', "bob@example.com" is not valid
 * JSON`, `..."{"email": bob@exampl"...`), which may be an address: the reason keeps what precedes it.
 */
function withoutQuotedText(message: string): string {
  return message.replace(/, (?:\.\.\.)?"[\s\S]*/, '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
