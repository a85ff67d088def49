import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LEDGER_REQUEST_TIMEOUT_MS } from '../../functions/adapters/ledger-client-config';
import { receiveOf } from '../../functions/sender/create-sender-handler';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

describe('which receive of its message a record is', () => {
  const attributes = (a: Record<string, string>) => ({ attributes: a }) as unknown as Pick<SQSRecord, 'attributes'>;

  it('reads the receive count and the time SQS first accepted the message', () => {
    expect(receiveOf(attributes({ ApproximateReceiveCount: '3', SentTimestamp: '1764417600000' }))).toEqual({ receiveCount: 3, sentAtMs: 1764417600000 });
  });

  it('without the attributes: a first receive, sent at an unknown time', () => {
    expect(receiveOf({} as Pick<SQSRecord, 'attributes'>)).toEqual({ receiveCount: 1, sentAtMs: undefined });
    expect(receiveOf(attributes({}))).toEqual({ receiveCount: 1, sentAtMs: undefined });
  });

  it.each([
    ['0', 1],
    ['-2', 1],
    ['1.5', 1],
    ['many', 1],
    ['1', 1],
    ['2', 2],
  ])('a receive count of %s counts as %i', (count, expected) => {
    expect(receiveOf(attributes({ ApproximateReceiveCount: count, SentTimestamp: '5' })).receiveCount).toBe(expected);
  });

  it.each([
    ['0', undefined],
    ['-5', undefined],
    ['soon', undefined],
    ['1', 1],
  ])('a sent timestamp of %s reads as %s', (sentAt, expected) => {
    expect(receiveOf(attributes({ ApproximateReceiveCount: '1', SentTimestamp: sentAt })).sentAtMs).toBe(expected);
  });
});

describe('a delivery starts only with room left for the send and both ledger writes', () => {
  const SEND_TIMEOUT_MS = 2_000;
  const NEEDED_MS = SEND_TIMEOUT_MS + 2 * LEDGER_REQUEST_TIMEOUT_MS;

  async function invokeWithRemaining(eventId: string, remainingMs: number) {
    const harness = new SenderHarness({ ledger: db.ledger, sendTimeoutMs: SEND_TIMEOUT_MS });
    const record = sqsRecord(JSON.stringify(loginCodeEvent({ eventId })));
    const response = await harness.handler(sqsEvent(record), { ...lambdaContext(), getRemainingTimeInMillis: () => remainingMs });
    return { failed: failedIds(response), sends: (await harness.outbox()).length };
  }

  it('exactly the room needed is not enough: the record is handed back, nothing sent', async () => {
    expect(await invokeWithRemaining('evt-room-exact', NEEDED_MS)).toMatchObject({ failed: [expect.any(String)], sends: 0 });
  });

  it('one millisecond more is', async () => {
    expect(await invokeWithRemaining('evt-room-plus-one', NEEDED_MS + 1)).toEqual({ failed: [], sends: 1 });
  });
});
