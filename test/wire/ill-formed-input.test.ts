import { describe, expect, it } from 'vitest';
import { idempotencyKey, type Channel } from '../../functions/core/event/idempotency-key';
import { orderShippedEvent } from '../support/events';
import { METRIC } from '../../functions/core/observability/metric-names';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { AMBIGUITY_METRICS, oneMessage, sendRequests } from './one-message';
import { useWireRig } from './wire-harness';

// Through the real sender, the real SES v2 and SNS clients (over HTTP to the local services, through proxies
// that see every request) and the real ledger on dynalite.

const db = useTestLedger();
const rig = useWireRig(db);

describe('the lone-surrogate event is dead-lettered at its first receive, naming the field: no claim, no provider request, no ambiguity', () => {
  it.each(['email', 'sms', 'push'] as const)('%s', async (channel) => {
    // What `text.slice(0, n)` leaves of a value ending in an emoji, and JSON.stringify writes as "\ud83d".
    const { event, key, field } = oneMessage(channel, `evt-lone-surrogate-${channel}`, '1001 \ud83d');
    const body = JSON.stringify(event);
    expect(body).toContain('\\ud83d');
    const sender = rig.sender();
    const before = sendRequests(rig);

    const record = sqsRecord(body);
    expect(failedIds(await sender.invoke(record))).toEqual([]);
    expect(sender.deadLetters.letters).toEqual([
      { body, reason: 'SchemaViolation', detail: `data.${field}: Invalid string: not well-formed Unicode (a lone surrogate)`, sourceMessageId: record.messageId },
    ]);
    expect(sendRequests(rig) - before).toBe(0);
    expect(await db.ledger.get(key)).toBeUndefined();
    for (const metric of AMBIGUITY_METRICS) expect(sender.metrics.get(metric), metric).toBe(0);
    expect(sender.metrics.get(METRIC.InvalidEvent)).toBe(1);
    expect(sender.metrics.get(METRIC.DeadLettered)).toBe(1);
  });
});

describe('a control character is decided per message: the part that cannot carry it fails alone, the others are sent', () => {
  it('a line break in orderId: the e-mail fails (its subject is one line); the SMS and the push, whose texts take it, are sent', async () => {
    const eventId = 'evt-control-line-break';
    const base = orderShippedEvent();
    const event = orderShippedEvent({ eventId, data: { ...base.data, orderId: '10\n01' }, recipients: [base.recipients[0]!] });
    const keyOf = (channel: Channel) => idempotencyKey({ eventId, recipientId: 'buyer-17', channel, templateId: 'order-shipped' });
    const sender = rig.sender();
    const before = sendRequests(rig);

    expect(failedIds(await sender.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect(await db.ledger.get(keyOf('email'))).toMatchObject({
      state: 'FAILED',
      failureReason: 'InvalidTemplateField: template "order-shipped" field orderId holds control character U+000A, which the email subject cannot carry',
    });
    expect(await db.ledger.get(keyOf('sms'))).toMatchObject({ state: 'SENT' });
    expect(await db.ledger.get(keyOf('push'))).toMatchObject({ state: 'SENT' });
    expect(sendRequests(rig) - before).toBe(2);
    expect(sender.metrics.get(METRIC.PermanentFailure)).toBe(1);
    expect(sender.deadLetters.letters).toEqual([]);
  });
});
