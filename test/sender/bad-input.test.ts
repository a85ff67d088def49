import { describe, expect, it } from 'vitest';
import { InMemoryDeadLetters, type DeadLetter } from '../../functions/core/queue/dead-letter-sink';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

const NOW_ISO = '2026-11-29T12:00:00.000Z';

const invalidBodies: { name: string; body: string; reason: DeadLetter['reason']; metric: string; detail: RegExp }[] = [
  { name: 'not JSON', body: '{"eventId": "e1", ', reason: 'NotJson', metric: METRIC.InvalidEvent, detail: /not JSON/ },
  {
    name: 'schema violation',
    body: JSON.stringify({ ...loginCodeEvent(), recipients: [] }),
    reason: 'SchemaViolation',
    metric: METRIC.InvalidEvent,
    detail: /recipients/,
  },
  {
    name: 'oversized body',
    body: JSON.stringify(loginCodeEvent({ data: { code: '1', expiresInMinutes: 1, padding: 'x'.repeat(4000) } })),
    reason: 'BodyTooLarge',
    metric: METRIC.InvalidEvent,
    detail: /limit is 2048/,
  },
  {
    name: 'unknown message class',
    body: JSON.stringify(loginCodeEvent({ messageClass: 'carrier-pigeon' })),
    reason: 'UnknownMessageClass',
    metric: METRIC.InvalidEvent,
    detail: /^"carrier-pigeon" \(known: otp, transactional, marketing\)$/,
  },
  {
    name: 'event older than the ledger retention',
    body: JSON.stringify(loginCodeEvent({ occurredAt: '2026-10-01T00:00:00.000Z' })),
    reason: 'EventTooOld',
    metric: METRIC.EventTooOld,
    detail: /^occurredAt 2026-10-01T00:00:00.000Z is older than the ledger retention of 30 days; it cannot be deduplicated safely and is not sent blind$/,
  },
  {
    name: 'event from the future',
    body: JSON.stringify(loginCodeEvent({ occurredAt: '2026-11-29T13:00:00.000Z' })),
    reason: 'OccurredInFuture',
    metric: METRIC.InvalidEvent,
    detail: /^occurredAt 2026-11-29T13:00:00.000Z is more than 300s ahead of now$/,
  },
  {
    name: 'SNS envelope whose Message is not JSON',
    body: JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:t',
      Message: 'hello',
      Timestamp: NOW_ISO,
    }),
    reason: 'NotJson',
    metric: METRIC.InvalidEvent,
    detail: /SNS Message is not JSON/,
  },
];

describe('bad input is dead-lettered with its reason, acknowledged and counted', () => {
  it.each(invalidBodies)('$name', async ({ body, reason, metric, detail }) => {
    const harness = new SenderHarness({ ledger: db.ledger, maxBodyBytes: 2048 });
    const record = sqsRecord(body);
    expect(failedIds(await harness.invoke(record))).toEqual([]);
    expect(harness.deadLetters.letters).toHaveLength(1);
    const letter = harness.deadLetters.letters[0]!;
    expect(letter).toMatchObject({ body, reason, sourceMessageId: record.messageId });
    expect(letter.detail).toMatch(detail);
    expect(letter.detail).not.toMatch(/@example\.com|\+1415/);
    expect(harness.metrics.get(metric as typeof METRIC.InvalidEvent)).toBe(1);
    expect(harness.metrics.get(METRIC.DeadLettered)).toBe(1);
    expect(await harness.outbox()).toEqual([]);
  });

  it('if the dead-letter queue cannot take the record, the record is retried, not lost', async () => {
    class BrokenDeadLetters extends InMemoryDeadLetters {
      override async deadLetter(): Promise<void> {
        throw new Error('SQS unavailable');
      }
    }
    const broken = new SenderHarness({ ledger: db.ledger, deadLetters: new BrokenDeadLetters() });
    const record = sqsRecord('not json');
    expect(failedIds(await broken.invoke(record))).toEqual([record.messageId]);
  });
});

describe('bad recipients and templates fail alone, recorded in the ledger', () => {
  it('an invalid address fails its message (FAILED with the reason) while the others are sent', async () => {
    const event = orderShippedEvent({ eventId: 'evt-bad-phone' });
    event.recipients[0] = { ...event.recipients[0]!, phone: '07700 900123' };
    const harness = new SenderHarness({ ledger: db.ledger });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);

    const smsKey = idempotencyKey({ eventId: event.eventId, recipientId: 'buyer-17', channel: 'sms', templateId: 'order-shipped' });
    expect(await db.ledger.get(smsKey)).toMatchObject({
      state: 'FAILED',
      failureReason: 'InvalidAddress: phone number is not E.164 (+ and 7 to 15 digits)',
    });
    const calls = await harness.callsPerKey();
    expect(calls.size).toBe(3);
    expect(calls.has(smsKey)).toBe(false);
    expect(harness.metrics.get(METRIC.PermanentFailure)).toBe(1);
    expect(harness.metrics.get(METRIC.Sent)).toBe(3);

    // A redelivery does not retry a FAILED message.
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect((await harness.outbox()).length).toBe(3);
  });

  it('a missing template, channel variant or data field is FAILED with a clear reason', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const noTemplate = loginCodeEvent({ eventId: 'evt-no-template', templateId: 'does-not-exist' });
    const noVariant = orderShippedEvent({
      eventId: 'evt-no-variant',
      templateId: 'order-sold',
      data: { orderId: '1', itemId: '2', shipWithinDays: 2 },
      recipients: [{ recipientId: 'seller-4', phone: '+447700900124', channels: ['sms'] }],
    });
    const noField = loginCodeEvent({ eventId: 'evt-no-field', data: { code: '1' } });
    const response = await harness.invoke(
      sqsRecord(JSON.stringify(noTemplate)),
      sqsRecord(JSON.stringify(noVariant)),
      sqsRecord(JSON.stringify(noField)),
    );
    expect(failedIds(response)).toEqual([]);
    const reason = async (eventId: string, templateId: string, recipientId: string) =>
      (await db.ledger.get(idempotencyKey({ eventId, recipientId, channel: 'sms', templateId })))?.failureReason;
    expect(await reason('evt-no-template', 'does-not-exist', 'user-9')).toBe('MissingTemplate: no template "does-not-exist"');
    expect(await reason('evt-no-variant', 'order-sold', 'seller-4')).toBe('MissingTemplate: template "order-sold" has no sms variant');
    expect(await reason('evt-no-field', 'login-code', 'user-9')).toBe('MissingTemplateField: template "login-code" needs expiresInMinutes');
    expect(harness.metrics.get(METRIC.PermanentFailure)).toBe(3);
    expect(await harness.outbox()).toEqual([]);
  });

  it('accepts the event inside an SNS envelope and an EventBridge envelope, keyed by the event id only', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const event = loginCodeEvent({ eventId: 'evt-enveloped' });
    const viaSns = JSON.stringify({
      Type: 'Notification',
      MessageId: 'sns-message-id-1',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:events',
      Message: JSON.stringify(event),
      Timestamp: NOW_ISO,
    });
    const viaEventBridge = JSON.stringify({
      version: '0',
      id: 'eventbridge-id-2',
      'detail-type': 'LoginCodeRequested',
      source: 'auth',
      account: '123456789012',
      time: NOW_ISO,
      region: 'us-east-1',
      resources: [],
      detail: event,
    });
    expect(failedIds(await harness.invoke(sqsRecord(viaSns)))).toEqual([]);
    expect(failedIds(await harness.invoke(sqsRecord(viaEventBridge)))).toEqual([]);
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect((await harness.outbox()).length).toBe(1);
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(2);
  });
});

describe('unknown event fields (the defect: a misspelt messageclass or a misspelt recipient field disappeared without a word)', () => {
  const withUnknownFields = (eventId: string) => {
    const event = loginCodeEvent({ eventId });
    return { ...event, messageclass: 'otp', recipients: event.recipients.map((r) => ({ ...r, langauge: 'de-DE' })) };
  };

  it('are counted by name and logged as a warning, never their values, and the event is sent (the default)', async () => {
    const warnings: { message: string; attributes: Record<string, unknown> | undefined }[] = [];
    const log = { info: () => undefined, warn: (message: string, attributes?: Record<string, unknown>) => void warnings.push({ message, attributes }), error: () => undefined };
    const harness = new SenderHarness({ ledger: db.ledger, log });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(withUnknownFields('evt-unknown-fields')))))).toEqual([]);
    expect(harness.metrics.get(METRIC.UnknownEventField)).toBe(2);
    expect(harness.metrics.byDimensions.get(`${METRIC.UnknownEventField}|-|-|messageclass`)).toBe(1);
    expect(harness.metrics.byDimensions.get(`${METRIC.UnknownEventField}|-|-|recipients[].langauge`)).toBe(1);
    const warning = warnings.find((w) => w.message.includes('fields the schema does not know'));
    expect(warning?.attributes).toEqual({ eventId: 'evt-unknown-fields', fields: ['messageclass', 'recipients[].langauge'] });
    expect(JSON.stringify(warnings)).not.toContain('de-DE');
    expect(harness.deadLetters.letters).toEqual([]);
    expect((await harness.outbox()).length).toBeGreaterThan(0);
  });

  it('are refused when the stack says so: dead-lettered with reason UnknownField, naming the fields', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, refuseUnknownEventFields: true });
    const body = JSON.stringify(withUnknownFields('evt-unknown-fields-refused'));
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    expect(harness.deadLetters.letters).toHaveLength(1);
    expect(harness.deadLetters.letters[0]).toMatchObject({ reason: 'UnknownField', detail: 'fields the schema does not know: messageclass, recipients[].langauge' });
    expect(harness.metrics.get(METRIC.UnknownEventField)).toBe(2);
    expect(await harness.outbox()).toEqual([]);
  });
});
