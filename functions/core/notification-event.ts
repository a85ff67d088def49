import { InvalidEventError } from './errors';
import { EventBridgeSchema, SnsSqsNotificationSchema } from './event-envelopes';
import { CHANNELS } from './idempotency-key';
import * as z from './schema';

/** Largest SQS body we accept; anything larger is dead-lettered, never half-processed. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Most messages one event may fan out to; keeps one record's work bounded. */
export const MAX_MESSAGES_PER_EVENT = 100;

const idString = z.string().check(z.minLength(1), z.maxLength(256));

// Addresses are only shape-checked here (strings); whether each is a valid email, E.164
// number or endpoint ARN is decided per message, so one bad recipient fails alone.
const RecipientSchema = z
  .object({
    recipientId: idString,
    email: z.optional(z.string().check(z.maxLength(320))),
    phone: z.optional(z.string().check(z.maxLength(32))),
    pushEndpointArn: z.optional(z.string().check(z.maxLength(1024))),
    channels: z.array(z.enum(CHANNELS)).check(z.minLength(1), z.maxLength(CHANNELS.length)),
  })
  .check(
    z.refine((r) => new Set(r.channels).size === r.channels.length, {
      message: 'channels must not repeat',
      path: ['channels'],
    }),
  );

const TemplateValue = z.union([z.string().check(z.maxLength(4096)), z.number(), z.boolean(), z.null()]);

/** The business event a producer publishes: one event, one or more messages. */
export const NotificationEventSchema = z
  .object({
    eventId: idString,
    occurredAt: z.iso.datetime({ offset: true }),
    type: z.string().check(z.minLength(1), z.maxLength(128)),
    templateId: z.string().check(z.minLength(1), z.maxLength(128)),
    messageClass: z.string().check(z.minLength(1), z.maxLength(64)),
    data: z._default(z.record(z.string(), TemplateValue), {}),
    recipients: z.array(RecipientSchema).check(z.minLength(1), z.maxLength(MAX_MESSAGES_PER_EVENT)),
  })
  .check(
    z.refine((e) => new Set(e.recipients.map((r) => r.recipientId)).size === e.recipients.length, {
      message: 'recipientId must be unique within an event',
      path: ['recipients'],
    }),
    z.refine((e) => e.recipients.reduce((n, r) => n + r.channels.length, 0) <= MAX_MESSAGES_PER_EVENT, {
      message: `an event may fan out to at most ${MAX_MESSAGES_PER_EVENT} messages`,
      path: ['recipients'],
    }),
  );

export type NotificationEvent = z.infer<typeof NotificationEventSchema>;
export type Recipient = NotificationEvent['recipients'][number];

/** How the event reached the queue; logged, never used for identity. */
export type EventEnvelope = 'raw' | 'sns' | 'eventbridge';

export interface ParsedEvent {
  readonly event: NotificationEvent;
  readonly envelope: EventEnvelope;
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
  const result = NotificationEventSchema.safeParse(payload);
  if (!result.success) {
    throw new InvalidEventError('SchemaViolation', describeIssues(result.error));
  }
  return { event: result.data, envelope };
}

function unwrapEnvelope(json: unknown): { payload: unknown; envelope: EventEnvelope } {
  if (isObject(json) && json.Type === 'Notification' && 'TopicArn' in json) {
    const sns = SnsSqsNotificationSchema.safeParse(json);
    if (!sns.success) throw new InvalidEventError('SchemaViolation', `SNS envelope: ${describeIssues(sns.error)}`);
    return { payload: parseJson(sns.data.Message, 'SNS Message'), envelope: 'sns' };
  }
  if (isObject(json) && 'detail-type' in json && 'detail' in json) {
    const eventBridge = EventBridgeSchema.safeParse(json);
    if (!eventBridge.success) {
      throw new InvalidEventError('SchemaViolation', `EventBridge envelope: ${describeIssues(eventBridge.error)}`);
    }
    return { payload: eventBridge.data.detail, envelope: 'eventbridge' };
  }
  return { payload: json, envelope: 'raw' };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidEventError('NotJson', `${what} is not JSON (${(error as Error).message})`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field paths and messages only: issue input values may hold addresses and must not be logged. */
function describeIssues(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
