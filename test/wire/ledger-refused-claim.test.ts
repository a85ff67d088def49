import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { awsErrorResponse } from '../../local/aws/aws-error-shapes';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { useWireRig } from './wire-harness';

const db = useTestLedger();
const rig = useWireRig(db);

/**
 * What DynamoDB answers a PutItem whose item exceeds 400 KB: a 400 `ValidationException`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items, "Item size").
 */
const itemTooLarge = () => awsErrorResponse('dynamodb', 400, 'ValidationException', 'Item size has exceeded the maximum allowed size');

/**
 * Review defect 1's second half: a claim the ledger refuses for what it holds was retried at every receive until the
 * queue's limit and never dead-lettered with a reason. The producer's strings are bounded now, so no event can make
 * one; a refused claim (a future field, a bug) still ends in the dead-letter queue with its reason, at once.
 */
describe('a claim the ledger refuses for what it holds (review defect 1)', () => {
  it('dead-letters the record with its reason at the first receive: nothing claimed, nothing sent, counted', async () => {
    const eventId = 'evt-refused-claim';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    rig.dynamoProxy.setDecider((r) => (r.ledgerWrite === 'claim' ? { kind: 'error-before', response: itemTooLarge() } : undefined));
    const sender = rig.sender(new ControlledClock());
    const record = sqsRecord(JSON.stringify(loginCodeEvent({ eventId })));

    expect(failedIds(await sender.invoke(record))).toEqual([]);
    expect(sender.deadLetters.letters).toHaveLength(1);
    expect(sender.deadLetters.letters[0]).toMatchObject({
      reason: 'LedgerRefusedClaim',
      sourceMessageId: record.messageId,
      detail: 'the ledger refused the claim: ValidationException: Item size has exceeded the maximum allowed size; 1 of 1 messages not settled',
    });
    expect(sender.metrics.get(METRIC.DeadLettered)).toBe(1);
    expect(rig.accepted(key)).toBe(0);
    expect(await db.ledger.get(key)).toBeUndefined();
    // The SDK does not retry a ValidationException: one claim request went out.
    expect(rig.dynamoProxy.requests.filter((r) => r.ledgerWrite === 'claim')).toHaveLength(1);
  });
});
