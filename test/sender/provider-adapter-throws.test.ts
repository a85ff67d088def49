import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

// Providers never throw by contract; one that does (a bug, an SDK surprise) may have sent already.
describe('a provider adapter that throws instead of answering', () => {
  it.each([
    { thrown: new Error('socket closed mid-body'), reason: 'ProviderAdapterError: socket closed mid-body' },
    { thrown: 'a bare string', reason: 'ProviderAdapterError: a bare string' },
  ])('is an unknown outcome, recorded with what it threw ($reason)', async ({ thrown, reason }) => {
    const eventId = `evt-adapter-throws-${typeof thrown}`;
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const harness = new SenderHarness({
      ledger: db.ledger,
      wrapProvider: () => ({
        send: async () => {
          throw thrown;
        },
      }),
    });
    const record = sqsRecord(JSON.stringify(loginCodeEvent({ eventId, messageClass: 'otp' })));

    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous', failureReason: reason });
    expect(harness.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
  });

  it('and one that throws on every call ends the message after 3 attempts (UNKNOWN, AmbiguityLoopStopped) instead of looping to the DLQ', async () => {
    const eventId = 'evt-adapter-throws-always';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    let calls = 0;
    const harness = new SenderHarness({
      ledger: db.ledger,
      wrapProvider: () => ({
        send: async () => {
          calls += 1;
          throw new TypeError('a bug of ours, the same on every call');
        },
      }),
    });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'otp' }));
    const failedPerReceive: number[] = [];
    for (let receive = 0; receive < 5; receive += 1) failedPerReceive.push(failedIds(await harness.invoke(sqsRecord(body))).length);

    expect(failedPerReceive).toEqual([1, 1, 0, 0, 0]);
    expect(calls).toBe(3);
    expect(await db.ledger.get(key)).toMatchObject({
      state: 'UNKNOWN',
      failureReason: 'AmbiguityLoop: 3 calls in a row unanswered, ProviderAdapterError; last: ProviderAdapterError: a bug of ours, the same on every call',
    });
    expect(harness.metrics.get(METRIC.AmbiguityLoopStopped)).toBe(1);
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(2);
  });
});
