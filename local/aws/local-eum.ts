import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { EUM_KEY_CONTEXT } from '../../functions/adapters/eum-sms-provider';
import { serveProviderSends, type LocalProviderSends } from './accepted-sends';
import { EUM_SEND_TEXT_THROTTLED } from './documented-throttling';
import { readBody } from './loopback-http';
import { SendLimits, type SendLimitOptions } from './send-limits';
import { eumErrorBody, EUM_JSON_CONTENT_TYPE, EUM_TARGET_PREFIX, type EumErrorShape } from './eum-json-protocol';

/** What happens to one event on its way to the configuration set's event destination. */
export type EumEventFate = 'deliver' | 'drop' | { readonly delayMs: number };

/** Options of the local End User Messaging SMS service. */
export interface LocalEumOptions {
  /** Configuration sets that exist; a send naming another answers ResourceNotFoundException. @default ['notifier-sms'] */
  readonly configurationSets?: readonly string[];
  /** Destination numbers on the opt-out list: ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT. @default none */
  readonly optedOut?: readonly string[];
  /**
   * Destination numbers the carrier cannot reach: a text to one is accepted, then its events end in a failure
   * (TEXT_CARRIER_UNREACHABLE, intermediate, then TEXT_UNREACHABLE, final) instead of TEXT_DELIVERED. @default none
   */
  readonly unreachable?: readonly string[];
  /** Accepted texts per second and per day; above them ThrottlingException. @default no limits */
  readonly limits?: SendLimitOptions;
  /**
   * The configuration set's event destination: each event of an accepted text, with the sender's Context,
   * as End User Messaging publishes it (the stack: an SNS topic feeding the status queue). @default events kept only
   */
  readonly publishEvent?: (event: EumEventRecord) => Promise<void>;
  /** Per event, whether it reaches the destination, late or at all (a fault plan's say). @default every event, at once */
  readonly eventFate?: (key: string | undefined, event: EumEventRecord) => EumEventFate;
}

/** The event types this stand-in emits. */
export type EumEventType = 'TEXT_PENDING' | 'TEXT_DELIVERED' | 'TEXT_CARRIER_UNREACHABLE' | 'TEXT_UNREACHABLE';

/**
 * The events of one accepted text, in order, and whether each is final. AWS marks each event `isFinal` ("True if
 * this is the final status for the message. There are intermediate message statuses", the final one up to 72 hours
 * later: "Example SMS event data", https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html):
 * TEXT_PENDING ("in the process of being delivered") is intermediate, TEXT_DELIVERED final. For a number the
 * carrier cannot reach, the stand-in first reports TEXT_CARRIER_UNREACHABLE as an intermediate status (the event
 * types page calls it "a transient error ... on the carrier network") and then TEXT_UNREACHABLE as the final one:
 * which failure types AWS sends as intermediate is not listed, so this is the shape a consumer must survive, not a
 * promise of AWS's.
 */
export const EUM_TEXT_LIFE: Readonly<Record<'delivered' | 'unreachable', readonly { readonly eventType: EumEventType; readonly isFinal: boolean }[]>> = {
  delivered: [
    { eventType: 'TEXT_PENDING', isFinal: false },
    { eventType: 'TEXT_DELIVERED', isFinal: true },
  ],
  unreachable: [
    { eventType: 'TEXT_PENDING', isFinal: false },
    { eventType: 'TEXT_CARRIER_UNREACHABLE', isFinal: false },
    { eventType: 'TEXT_UNREACHABLE', isFinal: true },
  ],
};

/** One event record in the documented SMS event format (the fields this stand-in fills). */
export interface EumEventRecord {
  readonly eventType: EumEventType;
  readonly eventVersion: '1.0';
  readonly eventTimestamp: number;
  readonly isFinal: boolean;
  readonly destinationPhoneNumber: string;
  readonly messageId: string;
  readonly messageRequestTimestamp: number;
  readonly messageType: string;
  readonly messageStatus: string;
  readonly context?: Readonly<Record<string, string>>;
  readonly totalMessageParts: number;
}

/** One SendTextMessage the service accepted. */
export interface AcceptedText {
  readonly key: string | undefined;
  readonly messageId: string;
  readonly to: string;
  readonly text: string;
  readonly messageType: string;
  readonly timeToLive: number | undefined;
  readonly acceptedAt: number;
}

/** A local End User Messaging SMS (AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2); texts counted by the key in their Context. */
export interface LocalEum extends LocalProviderSends<AcceptedText> {
  /** A page listing every accepted text and its events (live on reload). */
  readonly outboxUrl: string;
  /** Every event emitted, with its fate. */
  events(): readonly { readonly event: EumEventRecord; readonly fate: 'delivered' | 'dropped' | 'failed' }[];
  /** Resolves when every event emitted so far has reached the destination (or was dropped). */
  settled(): Promise<void>;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const NO_SPACE = /^\S+$/;

/**
 * A minimal End User Messaging SMS (`pinpoint-sms-voice-v2`) service speaking the awsJson1_0 protocol the
 * v3 SDK uses (`X-Amz-Target: PinpointSMSVoiceV2.SendTextMessage`), with the API's documented errors and
 * their modeled `Reason` / `Fields`, and the events of every accepted text (EUM_TEXT_LIFE: intermediate, then final)
 * carrying the sender's `Context`, published to the configuration set's destination. No package serves this
 * API; a test and local fixture, not product code.
 */
export async function startLocalEum(options: LocalEumOptions = {}): Promise<LocalEum> {
  const configurationSets = new Set(options.configurationSets ?? ['notifier-sms']);
  const optedOut = new Set(options.optedOut ?? []);
  const unreachable = new Set(options.unreachable ?? []);
  const limits = new SendLimits(options.limits);
  const accepted: AcceptedText[] = [];
  const emitted: { event: EumEventRecord; fate: 'delivered' | 'dropped' | 'failed' }[] = [];
  const inFlight = new Set<Promise<void>>();

  const emit = (text: AcceptedText, step: (typeof EUM_TEXT_LIFE)['delivered'][number], at: number, context: Readonly<Record<string, string>> | undefined) => {
    const { eventType, isFinal } = step;
    const event: EumEventRecord = {
      eventType,
      eventVersion: '1.0',
      eventTimestamp: at,
      isFinal,
      destinationPhoneNumber: text.to,
      messageId: text.messageId,
      messageRequestTimestamp: text.acceptedAt,
      messageType: text.messageType,
      messageStatus: eventType.replace('TEXT_', ''),
      ...(context ? { context } : {}),
      totalMessageParts: 1,
    };
    const fate = options.eventFate?.(text.key, event) ?? 'deliver';
    if (fate === 'drop') return void emitted.push({ event, fate: 'dropped' });
    const delayMs = fate === 'deliver' ? 0 : fate.delayMs;
    const publish = new Promise<void>((resolve) => setTimeout(resolve, delayMs))
      .then(() => options.publishEvent?.(event))
      .then(
        () => void emitted.push({ event, fate: 'delivered' }),
        () => void emitted.push({ event, fate: 'failed' }),
      );
    inFlight.add(publish);
    void publish.finally(() => inFlight.delete(publish));
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') return writeOutboxPage(res, accepted, emitted);
      const body = await readBody(req);
      const target = req.headers['x-amz-target'];
      if (target !== `${EUM_TARGET_PREFIX}.SendTextMessage`) {
        return writeError(res, 400, { code: 'UnknownOperationException', message: `Operation ${String(target)} is not served here` });
      }
      let input: unknown;
      try {
        input = JSON.parse(body);
      } catch {
        return writeError(res, 400, { code: 'SerializationException', message: 'Body is not JSON' });
      }
      const checked = validateSendText(input, configurationSets, optedOut);
      if ('error' in checked) return writeError(res, 400, checked.error);
      if (limits.admit() !== 'accepted') return writeError(res, EUM_SEND_TEXT_THROTTLED.status, { code: EUM_SEND_TEXT_THROTTLED.code, message: EUM_SEND_TEXT_THROTTLED.message });
      const text: AcceptedText = { ...checked.text, messageId: randomUUID(), acceptedAt: Date.now() };
      accepted.push(text);
      const answer = JSON.stringify({ MessageId: text.messageId });
      res.writeHead(200, { 'content-type': EUM_JSON_CONTENT_TYPE, 'x-amzn-requestid': randomUUID(), 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
      // The events follow the answer, as AWS queues and hands the text off after accepting it; each a millisecond
      // after the one before (a later word never shares its predecessor's time).
      const life = EUM_TEXT_LIFE[unreachable.has(text.to) ? 'unreachable' : 'delivered'];
      const now = Date.now();
      life.forEach((step, index) => emit(text, step, now + index, checked.context));
    })().catch((error: unknown) => {
      if (!res.headersSent) writeError(res, 500, { code: 'InternalServerException', message: error instanceof Error ? error.message : 'local End User Messaging failed' });
      else res.destroy();
    });
  });
  const sends = await serveProviderSends(server, accepted);
  return {
    ...sends,
    events: () => [...emitted],
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      await Promise.allSettled([...inFlight]);
      await sends.stop();
    },
  };
}

type Checked =
  | { readonly text: Omit<AcceptedText, 'messageId' | 'acceptedAt'>; readonly context: Readonly<Record<string, string>> | undefined }
  | { readonly error: EumErrorShape };

const fieldError = (reason: string, field: string, message: string): { error: EumErrorShape } => ({
  error: { code: 'ValidationException', message, reason, fields: [{ Name: field, Message: message }] },
});

/** SendTextMessage's checks, in the API's terms (its request constraints, error names and reasons). */
function validateSendText(input: unknown, configurationSets: ReadonlySet<string>, optedOut: ReadonlySet<string>): Checked {
  const request = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const to = request.DestinationPhoneNumber;
  if (typeof to !== 'string') return fieldError('MISSING_PARAMETER', 'DestinationPhoneNumber', 'DestinationPhoneNumber is required');
  if (!E164.test(to)) return fieldError('CANNOT_PARSE', 'DestinationPhoneNumber', 'The destination phone number cannot be parsed');
  const text = request.MessageBody;
  if (typeof text !== 'string' || text.trim().length === 0 || text.length > 1600) {
    return fieldError('FIELD_VALIDATION_FAILED', 'MessageBody', 'MessageBody must be 1 to 1600 characters');
  }
  const messageType = request.MessageType ?? 'TRANSACTIONAL';
  if (messageType !== 'TRANSACTIONAL' && messageType !== 'PROMOTIONAL') return fieldError('FIELD_VALIDATION_FAILED', 'MessageType', 'Invalid MessageType');
  const ttl = request.TimeToLive;
  if (ttl !== undefined && !(Number.isInteger(ttl) && Number(ttl) >= 5 && Number(ttl) <= 259_200)) {
    return fieldError('FIELD_VALIDATION_FAILED', 'TimeToLive', 'TimeToLive must be 5 to 259200');
  }
  const context = request.Context;
  if (context !== undefined) {
    const entries = typeof context === 'object' && context !== null ? Object.entries(context) : [];
    const valid = entries.length <= 5 && entries.every(([k, v]) => NO_SPACE.test(k) && k.length <= 100 && typeof v === 'string' && NO_SPACE.test(v) && v.length <= 800);
    if (!valid) return fieldError('FIELD_VALIDATION_FAILED', 'Context', 'Context takes at most 5 entries without spaces');
  }
  const set = request.ConfigurationSetName;
  if (set !== undefined && (typeof set !== 'string' || !configurationSets.has(set))) {
    return { error: { code: 'ResourceNotFoundException', message: `Configuration set ${String(set)} not found`, resourceType: 'configuration-set' } };
  }
  if (optedOut.has(to)) {
    return { error: { code: 'ConflictException', message: 'The destination phone number is opted out', reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', resourceType: 'opted-out-number' } };
  }
  const contextMap = context as Readonly<Record<string, string>> | undefined;
  return {
    text: { key: contextMap?.[EUM_KEY_CONTEXT], to, text, messageType: String(messageType), timeToLive: typeof ttl === 'number' ? ttl : undefined },
    context: contextMap,
  };
}

function writeError(res: ServerResponse, status: number, error: EumErrorShape): void {
  const body = eumErrorBody(error);
  res.writeHead(status, { 'content-type': EUM_JSON_CONTENT_TYPE, 'x-amzn-requestid': randomUUID(), 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function writeOutboxPage(res: ServerResponse, accepted: readonly AcceptedText[], events: readonly { event: EumEventRecord; fate: string }[]): void {
  const escape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const texts = accepted
    .map((t) => `<tr><td>${new Date(t.acceptedAt).toISOString()}</td><td>${escape(t.to)}</td><td>${escape(t.key ?? '')}</td><td>${t.messageType}</td><td>${escape(t.text)}</td></tr>`)
    .join('\n');
  const rows = events
    .map(({ event, fate }) => `<tr><td>${new Date(event.eventTimestamp).toISOString()}</td><td>${event.eventType}${event.isFinal ? '' : ' (intermediate)'}</td><td>${escape(event.context?.[EUM_KEY_CONTEXT] ?? '')}</td><td>${escape(event.context?.['claim-version'] ?? '')}</td><td>${fate}</td></tr>`)
    .join('\n');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Local End User Messaging SMS: ${accepted.length} sent</title></head><body>
<h1>Local End User Messaging SMS: texts sent</h1>
<p>Every text the local End User Messaging SMS accepted, with the idempotency key it carried, then the delivery events it published to the configuration set's destination (which the status function writes onto the ledger).</p>
<table border="1" cellpadding="4"><thead><tr><th>accepted at</th><th>to</th><th>idempotency key</th><th>type</th><th>text</th></tr></thead><tbody>${texts}</tbody></table>
<h2>Events published to the configuration set's destination</h2>
<table border="1" cellpadding="4"><thead><tr><th>at</th><th>event</th><th>idempotency key</th><th>claim version</th><th>fate</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
