import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { DynamoRequestCounter, totalsBetween } from '../../local/dynamo-request-counter';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

function sellerEmail(eventId: string): string {
  return JSON.stringify(orderShippedEvent({ eventId, recipients: [{ recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] }] }));
}

/** Delivers once, then receives the same message again as an SQS redelivery; returns the redelivery's requests. */
async function redeliverySettled(eventId: string, readBeforeClaimOnRedelivery: boolean | undefined) {
  const counter = new DynamoRequestCounter().attach(db.client);
  const harness = new SenderHarness({ ledger: db.ledger, readBeforeClaimOnRedelivery });
  const body = sellerEmail(eventId);
  expect(failedIds(await harness.invoke(sqsRecord(body, 'm-1', { receiveCount: 1 })))).toEqual([]);
  const before = counter.snapshot();
  expect(failedIds(await harness.invoke(sqsRecord(body, 'm-1', { receiveCount: 2 })))).toEqual([]);
  expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(1);
  expect((await harness.outbox()).length).toBe(1);
  return totalsBetween(before, counter.snapshot());
}

describe('a redelivered message is read before it is claimed', () => {
  it('by default, a redelivery of a settled message costs one consistent read and no write', async () => {
    const requests = await redeliverySettled('evt-read-first', undefined);
    expect(requests.byOperation).toEqual({ GetItem: 1 });
    expect(requests.writes).toBe(0);
  });

  it('switched off, the same redelivery is a claim that fails its condition (one write unit)', async () => {
    const requests = await redeliverySettled('evt-claim-first', false);
    expect(requests.byOperation.PutItem).toBe(1);
    expect(requests.conditionalFailures).toBe(1);
  });
});
