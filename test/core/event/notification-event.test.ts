import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../../functions/core/errors';
import { MAX_MESSAGES_PER_EVENT, parseNotificationBody, type NotificationEvent } from '../../../functions/core/event/notification-event';
import { loginCodeEvent, orderShippedEvent } from '../../support/events';

const event = loginCodeEvent();
const snsEnvelope = (message: string) => ({
  Type: 'Notification',
  MessageId: 'sns-transport-id',
  TopicArn: 'arn:aws:sns:us-east-1:123456789012:notifications',
  Message: message,
  Timestamp: '2026-11-29T11:59:31.000Z',
});
const eventBridgeEnvelope = (detail: unknown) => ({
  version: '0',
  id: 'eventbridge-transport-id',
  'detail-type': 'LoginCodeRequested',
  source: 'shop.auth',
  account: '123456789012',
  time: '2026-11-29T11:59:31Z',
  region: 'us-east-1',
  resources: [],
  detail,
});

/** The reason and detail a body is refused with. */
function refusal(body: string, maxBodyBytes?: number): { reason: string; detail: string } {
  try {
    parseNotificationBody(body, maxBodyBytes);
  } catch (error) {
    if (!(error instanceof InvalidEventError)) throw error;
    return { reason: error.reason, detail: error.detail };
  }
  throw new Error('the body was accepted');
}

const recipients = (count: number, channels: NotificationEvent['recipients'][number]['channels']) =>
  Array.from({ length: count }, (_, i) => ({ recipientId: `r-${i}`, email: `r${i}@example.com`, phone: '+14155550101', channels }));

describe('parseNotificationBody: three envelopes, one identity', () => {
  it('takes the raw event', () => {
    expect(parseNotificationBody(JSON.stringify(event))).toEqual({ event, envelope: 'raw', unknownFields: [] });
  });

  it('unwraps an SNS notification; identity stays the event id, never the SNS MessageId', () => {
    expect(parseNotificationBody(JSON.stringify(snsEnvelope(JSON.stringify(event))))).toEqual({ event, envelope: 'sns', unknownFields: [] });
  });

  it('unwraps an EventBridge event; identity stays the event id, never the EventBridge id', () => {
    expect(parseNotificationBody(JSON.stringify(eventBridgeEnvelope(event)))).toEqual({ event, envelope: 'eventbridge', unknownFields: [] });
  });

  it('refuses a malformed SNS envelope, and says it is the envelope', () => {
    const { TopicArn, ...rest } = snsEnvelope(JSON.stringify(event));
    const body = JSON.stringify({ ...rest, TopicArn, Timestamp: 42 });
    expect(refusal(body)).toMatchObject({ reason: 'SchemaViolation', detail: expect.stringMatching(/^SNS envelope: Timestamp: /) });
  });

  it('refuses a malformed EventBridge envelope, and says it is the envelope', () => {
    const body = JSON.stringify({ ...eventBridgeEnvelope(event), account: 42 });
    expect(refusal(body)).toMatchObject({ reason: 'SchemaViolation', detail: expect.stringMatching(/^EventBridge envelope: account: /) });
  });

  it('an object with only one of detail-type and detail is a raw event (and not a valid one)', () => {
    const asRaw = { reason: 'SchemaViolation', detail: expect.stringMatching(/^eventId: /) };
    expect(refusal(JSON.stringify({ 'detail-type': 'x' }))).toMatchObject(asRaw);
    expect(refusal(JSON.stringify({ detail: event }))).toMatchObject(asRaw);
    expect(refusal(JSON.stringify({ Type: 'Notification', Message: JSON.stringify(event) }))).toMatchObject(asRaw);
    expect(refusal(JSON.stringify({ Type: 'SubscriptionConfirmation', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t' }))).toMatchObject(asRaw);
  });

  it('names what is not JSON: the body, or the SNS Message inside it', () => {
    expect(refusal('{"eventId":')).toMatchObject({ reason: 'NotJson', detail: expect.stringMatching(/^body is not JSON \(/) });
    expect(refusal(JSON.stringify(snsEnvelope('hello')))).toMatchObject({ reason: 'NotJson', detail: expect.stringMatching(/^SNS Message is not JSON \(/) });
  });

  it('says where the JSON breaks without quoting the text around it (an address, say)', () => {
    expect(refusal('bob@example.com')).toEqual({ reason: 'NotJson', detail: "body is not JSON (Unexpected token 'b')" });
    expect(refusal('{"recipients": [{"email": bob@example.com}]}')).toEqual({ reason: 'NotJson', detail: "body is not JSON (Unexpected token 'b')" });
    expect(refusal(JSON.stringify(snsEnvelope('+447700900123 called')))).toEqual({ reason: 'NotJson', detail: "SNS Message is not JSON (Unexpected token '+')" });
    // A message without quoted text stands as V8 words it (Node 22 and later add the line and column).
    const { detail } = refusal('{"email": "bob@example.com"');
    expect(detail).toMatch(/^body is not JSON \(Expected ',' or '}' after property value in JSON at position 27( \(line 1 column 28\))?\)$/);
  });
});

describe('parseNotificationBody: size, counted in UTF-8 bytes', () => {
  it('accepts a body of exactly the limit and refuses one byte more, naming both sizes', () => {
    const body = JSON.stringify(loginCodeEvent({ data: { code: 'é' } }));
    const bytes = Buffer.byteLength(body, 'utf8');
    expect(bytes).toBe(body.length + 1);
    expect(parseNotificationBody(body, bytes).envelope).toBe('raw');
    expect(refusal(body, bytes - 1)).toEqual({ reason: 'BodyTooLarge', detail: `body is ${bytes} bytes, limit is ${bytes - 1}` });
  });
});

describe('parseNotificationBody: the event schema', () => {
  it('defaults data to an empty object', () => {
    const { data: _data, ...withoutData } = event;
    expect(parseNotificationBody(JSON.stringify(withoutData)).event.data).toEqual({});
  });

  it('refuses a channel named twice for one recipient', () => {
    const body = JSON.stringify({ ...event, recipients: [{ recipientId: 'u', phone: '+14155550101', channels: ['sms', 'sms'] }] });
    expect(refusal(body)).toEqual({ reason: 'SchemaViolation', detail: 'recipients.0.channels: channels must not repeat' });
  });

  it('refuses a recipient named twice in one event', () => {
    const body = JSON.stringify({ ...event, recipients: [...recipients(1, ['sms']), ...recipients(1, ['email'])] });
    expect(refusal(body)).toEqual({ reason: 'SchemaViolation', detail: 'recipients: recipientId must be unique within an event' });
  });

  it(`fans out to at most ${MAX_MESSAGES_PER_EVENT} messages`, () => {
    const atLimit = { ...event, recipients: [...recipients(49, ['email', 'sms']), ...recipients(2, ['email']).map((r, i) => ({ ...r, recipientId: `x-${i}` }))] };
    expect(parseNotificationBody(JSON.stringify(atLimit)).event.recipients).toHaveLength(51);
    const over = { ...atLimit, recipients: [...atLimit.recipients, { recipientId: 'one-more', email: 'o@example.com', channels: ['email'] }] };
    expect(refusal(JSON.stringify(over), 1024 * 1024)).toEqual({
      reason: 'SchemaViolation',
      detail: `recipients: an event may fan out to at most ${MAX_MESSAGES_PER_EVENT} messages`,
    });
  });

  it('lists at most five problems, by path, and never the values', () => {
    const body = JSON.stringify({ eventId: '', occurredAt: 'yesterday', type: '', templateId: '', messageClass: '', recipients: [] });
    const { reason, detail } = refusal(body);
    expect(reason).toBe('SchemaViolation');
    expect(detail.split('; ').map((issue) => issue.split(':')[0])).toEqual(['eventId', 'occurredAt', 'type', 'templateId', 'messageClass']);
    expect(detail).not.toContain('yesterday');
  });

  it('names the root when the body is not an object', () => {
    expect(refusal('[]')).toMatchObject({ reason: 'SchemaViolation', detail: expect.stringMatching(/^\(root\): /) });
  });

  it('keeps every field of a valid multi-recipient event', () => {
    const shipped = orderShippedEvent();
    expect(parseNotificationBody(JSON.stringify(shipped)).event).toEqual(shipped);
  });
});

describe('parseNotificationBody: the envelope and the event fields at their edges', () => {
  it.each([
    ['null', 'null'],
    ['a string', '"evt-1"'],
    ['a number', '42'],
    ['an array', '[{"Type":"Notification","TopicArn":"arn:aws:sns:us-east-1:123456789012:t"}]'],
  ])('a body that is JSON but not an object (%s) is refused at the root', (_what, body) => {
    expect(refusal(body)).toMatchObject({ reason: 'SchemaViolation', detail: expect.stringMatching(/^\(root\): /) });
  });

  it('takes occurredAt with a UTC offset as well as in UTC', () => {
    const offset = { ...event, occurredAt: '2026-11-29T12:59:30.000+01:00' };
    expect(parseNotificationBody(JSON.stringify(offset)).event.occurredAt).toBe('2026-11-29T12:59:30.000+01:00');
  });

  it('refuses an SNS envelope whose TopicArn or Subject is not text', () => {
    const sns = snsEnvelope(JSON.stringify(event));
    expect(refusal(JSON.stringify({ ...sns, TopicArn: 42 }))).toMatchObject({ detail: expect.stringMatching(/^SNS envelope: TopicArn: /) });
    expect(refusal(JSON.stringify({ ...sns, Subject: 42 }))).toMatchObject({ detail: expect.stringMatching(/^SNS envelope: Subject: /) });
    expect(parseNotificationBody(JSON.stringify({ ...sns, Subject: null })).envelope).toBe('sns');
  });

  it('refuses an SNS envelope whose message attribute lacks its Type or Value', () => {
    const sns = snsEnvelope(JSON.stringify(event));
    const withAttribute = (attribute: object) => JSON.stringify({ ...sns, MessageAttributes: { tenant: attribute } });
    expect(parseNotificationBody(withAttribute({ Type: 'String', Value: 'shop' })).envelope).toBe('sns');
    expect(refusal(withAttribute({ Value: 'shop' }))).toMatchObject({ detail: expect.stringMatching(/^SNS envelope: MessageAttributes\.tenant\.Type: /) });
    expect(refusal(withAttribute({ Type: 'String' }))).toMatchObject({ detail: expect.stringMatching(/^SNS envelope: MessageAttributes\.tenant\.Value: /) });
  });
});

// What `text.slice(0, n)` leaves of a string ending in an emoji, as JSON.stringify writes it: "\ud83d".
const LONE = 'order 1001 \ud83d';

describe('parseNotificationBody: every string of an event is well-formed Unicode, or the event is refused naming the field', () => {
  const shipped = orderShippedEvent();
  const [buyer, seller] = shipped.recipients as [NotificationEvent['recipients'][number], NotificationEvent['recipients'][number]];
  it.each([
    ['eventId', { ...shipped, eventId: LONE }],
    ['type', { ...shipped, type: LONE }],
    ['templateId', { ...shipped, templateId: LONE }],
    ['messageClass', { ...shipped, messageClass: LONE }],
    ['data.carrier', { ...shipped, data: { ...shipped.data, carrier: LONE } }],
    ['data.k\\udc00', { ...shipped, data: { ...shipped.data, ['k\udc00']: 'a key' } }],
    ['recipients.0.recipientId', { ...shipped, recipients: [{ ...buyer, recipientId: LONE }, seller] }],
    ['recipients.0.email', { ...shipped, recipients: [{ ...buyer, email: `${LONE}@example.com` }, seller] }],
    ['recipients.0.phone', { ...shipped, recipients: [{ ...buyer, phone: '+4477\ud83d' }, seller] }],
    ['recipients.0.pushEndpointArn', { ...shipped, recipients: [{ ...buyer, pushEndpointArn: `${buyer.pushEndpointArn}\ud83d` }, seller] }],
  ])('%s', (field, ill) => {
    expect(refusal(JSON.stringify(ill))).toEqual({ reason: 'SchemaViolation', detail: `${field}: Invalid string: not well-formed Unicode (a lone surrogate)` });
  });

  it('names the field of an envelope too: an SNS or EventBridge wrapper field is producer text like the event', () => {
    const sns = snsEnvelope(JSON.stringify(event));
    expect(refusal(JSON.stringify({ ...sns, Subject: LONE })).detail).toBe('SNS envelope: Subject: Invalid string: not well-formed Unicode (a lone surrogate)');
    expect(refusal(JSON.stringify({ ...sns, MessageAttributes: { tenant: { Type: 'String', Value: LONE } } })).detail).toBe(
      'SNS envelope: MessageAttributes.tenant.Value: Invalid string: not well-formed Unicode (a lone surrogate)',
    );
    expect(refusal(JSON.stringify(eventBridgeEnvelope({ ...event, eventId: LONE }))).detail).toBe('eventId: Invalid string: not well-formed Unicode (a lone surrogate)');
    expect(refusal(JSON.stringify({ ...eventBridgeEnvelope(event), source: LONE })).detail).toBe(
      'EventBridge envelope: source: Invalid string: not well-formed Unicode (a lone surrogate)',
    );
    // The SNS Message is the event as text: a lone surrogate inside it is refused with the event's own field.
    expect(refusal(JSON.stringify(snsEnvelope(JSON.stringify({ ...event, data: { code: LONE, expiresInMinutes: 5 } })))).detail).toBe(
      'data.code: Invalid string: not well-formed Unicode (a lone surrogate)',
    );
  });

  it('takes well-formed text of every plane, and control characters (decided per message, see templates)', () => {
    const data = { orderId: '1001 \ud83d\ude00 \u4e2d', carrier: 'DHL\nExpress\u0007', trackingNumber: '\u0000' };
    expect(parseNotificationBody(JSON.stringify({ ...shipped, data })).event.data).toEqual(data);
  });

  it('the reason is well-formed text even when it names an ill-formed key', () => {
    const { detail } = refusal(JSON.stringify({ ...shipped, data: { ['\ud800']: 1 } }));
    expect(detail.isWellFormed()).toBe(true);
    expect(detail).toBe('data.\\ud800: Invalid string: not well-formed Unicode (a lone surrogate)');
  });
});
