import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

describe('at-least-once delivery of the same event', () => {
  it('50 concurrent deliveries of one event produce exactly one provider call per message', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const body = JSON.stringify(orderShippedEvent({ eventId: 'evt-concurrent-50' }));

    // 50 invocations at once, each with its own SQS messageId and receipt handle (as redeliveries have).
    const responses = await Promise.all(Array.from({ length: 50 }, () => harness.invoke(sqsRecord(body))));
    const acked = responses.filter((r) => r.batchItemFailures.length === 0).length;

    // Those reported as batch item failures come back later; by then every message is settled.
    const redeliveries = responses.filter((r) => r.batchItemFailures.length > 0);
    for (const _ of redeliveries) {
      expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    }

    const calls = await harness.callsPerKey();
    const expectedKeys = [
      ['buyer-17', 'email'],
      ['buyer-17', 'sms'],
      ['buyer-17', 'push'],
      ['seller-4', 'email'],
    ].map(([recipientId, channel]) =>
      idempotencyKey({ eventId: 'evt-concurrent-50', recipientId: recipientId!, channel: channel as 'email', templateId: 'order-shipped' }),
    );
    expect([...calls.keys()].sort()).toEqual([...expectedKeys].sort());
    expect([...calls.values()]).toEqual([1, 1, 1, 1]);
    expect(harness.metrics.get(METRIC.Sent)).toBe(4);
    expect(acked + redeliveries.length).toBe(50);
    // Every invocation that did not send a message either backed off from it or found it settled.
    expect(harness.metrics.get(METRIC.DuplicateSuppressed) + harness.metrics.get(METRIC.ConcurrentClaimBackoff)).toBeGreaterThanOrEqual(
      49 * 4,
    );
    for (const key of expectedKeys) expect((await db.ledger.get(key))?.state).toBe('SENT');
  });

  it('a redelivery that finds SENT is acknowledged and counted as a suppressed duplicate', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const body = JSON.stringify(orderShippedEvent({ eventId: 'evt-redelivered-after-sent' }));
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);

    const redelivery = sqsRecord(body);
    expect(failedIds(await harness.invoke(redelivery))).toEqual([]);
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(4);
    expect((await harness.outbox()).length).toBe(4);
  });

  it('a redelivery that finds a fresh PENDING claim is reported as a batch item failure', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const event = orderShippedEvent({ eventId: 'evt-fresh-pending' });
    // Another worker holds a fresh claim on one of the messages.
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'seller-4', channel: 'email', templateId: event.templateId });
    const now = harness.clock.now();
    await db.ledger.claim(
      {
        key,
        state: 'PENDING',
        claimVersion: 1,
        ownerToken: 'other-worker',
        claimedAt: now,
        leaseExpiresAt: now + 120_000,
        attempts: 1,
        eventId: event.eventId,
        recipientId: 'seller-4',
        channel: 'email',
        templateId: event.templateId,
        messageClass: event.messageClass,
        occurredAt: event.occurredAt,
        createdAt: now,
        updatedAt: now,
        expiresAt: Math.ceil((now + 86_400_000) / 1000),
      },
      now,
    );
    const record = sqsRecord(JSON.stringify(event));
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(harness.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(1);
    // The other three messages went out; the claimed one did not.
    const calls = await harness.callsPerKey();
    expect(calls.size).toBe(3);
    expect(calls.has(key)).toBe(false);
  });
});

describe('the end of an invocation', () => {
  it('starts no delivery it could not record before the function times out, and leaves no claim behind', async () => {
    const logged: { message: string; attributes?: Record<string, unknown> }[] = [];
    const info = (message: string, attributes?: Record<string, unknown>) => void logged.push({ message, attributes });
    const harness = new SenderHarness({ ledger: db.ledger, sendTimeoutMs: 2_000, log: { info, warn: info, error: info } });
    const event = orderShippedEvent({ eventId: 'evt-out-of-time' });
    const record = sqsRecord(JSON.stringify(event));
    const { sqsEvent, lambdaContext } = await import('../support/sqs-event');
    const almostOut = { ...lambdaContext(), getRemainingTimeInMillis: () => 3_000 };
    expect(failedIds(await harness.handler(sqsEvent(record), almostOut))).toEqual([record.messageId]);
    expect(await harness.outbox()).toEqual([]);
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'seller-4', channel: 'email', templateId: event.templateId });
    expect(await db.ledger.get(key)).toBeUndefined();
    // The record comes back: counted, and its reason logged (before, nothing said why it was received again).
    expect(harness.metrics.get(METRIC.RecordRetried)).toBe(1);
    expect(logged).toContainEqual({
      message: 'Record handed back unfinished; it returns after the queue visibility timeout',
      attributes: { sqsMessageId: record.messageId, receiveCount: 1, reason: '4 of 4 messages of event evt-out-of-time not settled (out-of-time)' },
    });
  });
});
