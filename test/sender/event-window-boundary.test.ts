import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { RETENTION_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/** The harness's clock-skew allowance (MAX_CLOCK_SKEW_SECONDS = 300). */
const SKEW_MS = 300_000;

/**
 * Sends one event whose `occurredAt` is `offsetMs` from the harness's "now", and says what became
 * of it: dead-lettered with a reason, or sent (one provider call for its key).
 */
async function deliverAt(eventId: string, offsetMs: number): Promise<{ deadLetter: string | undefined; calls: number }> {
  const harness = new SenderHarness({ ledger: db.ledger });
  const occurredAt = new Date(harness.clock.now() + offsetMs).toISOString();
  const event = loginCodeEvent({ eventId, occurredAt });
  expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
  const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
  return { deadLetter: harness.deadLetters.letters[0]?.reason, calls: (await harness.callsPerKey()).get(key) ?? 0 };
}

// The oldest event the sender accepts is one whose row is sure to outlive any redelivery:
// occurredAt + retention - skew must still be after now. The skew margin narrows the window.
const OLDEST_ACCEPTED = -(RETENTION_MS - SKEW_MS) + 1;

describe('the event window, at its edges to the millisecond', () => {
  it('EventTooOld at exactly occurredAt + retention - skew = now', async () => {
    expect(await deliverAt('evt-window-old-boundary', OLDEST_ACCEPTED - 1)).toEqual({ deadLetter: 'EventTooOld', calls: 0 });
  });

  it('EventTooOld one millisecond past that boundary', async () => {
    expect(await deliverAt('evt-window-old-past', OLDEST_ACCEPTED - 2)).toEqual({ deadLetter: 'EventTooOld', calls: 0 });
  });

  it('sent one millisecond before that boundary (the skew margin narrows the window, never widens it)', async () => {
    expect(await deliverAt('evt-window-old-inside', OLDEST_ACCEPTED)).toEqual({ deadLetter: undefined, calls: 1 });
  });

  it('sent when occurredAt is exactly the skew allowance ahead of now', async () => {
    expect(await deliverAt('evt-window-future-boundary', SKEW_MS)).toEqual({ deadLetter: undefined, calls: 1 });
  });

  it('OccurredInFuture one millisecond beyond the skew allowance', async () => {
    expect(await deliverAt('evt-window-future-past', SKEW_MS + 1)).toEqual({ deadLetter: 'OccurredInFuture', calls: 0 });
  });
});
