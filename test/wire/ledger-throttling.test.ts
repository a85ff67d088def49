import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { COUNTER_PARTITION_PREFIX } from '../../functions/core/policy/message-limits';
import { METRIC } from '../../functions/core/observability/metric-names';
import { awsErrorResponse } from '../../local/aws/aws-error-shapes';
import type { WireRequest } from '../../local/aws/wire-operation';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { faultFirst, startWireRig, type WireRig } from './wire-harness';

const db = useTestLedger();
let rig: WireRig;
// A rig per test: its DynamoDB client starts with the SDK's full retry quota, which throttling drains.
beforeEach(async () => {
  rig = await startWireRig(db);
});
afterEach(async () => rig?.stop());

/** DynamoDB's answer to a request past a partition's or the table's throughput, as its protocol carries it. */
const throttled = (code: string) => ({
  kind: 'error-before' as const,
  response: awsErrorResponse('dynamodb', 400, code, 'The level of configured provisioned throughput for the table was exceeded (injected)'),
});

/** One otp code to its own number: one message, one key. */
function code(eventId: string) {
  const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  return {
    key: idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }),
    body: JSON.stringify(loginCodeEvent({ eventId, recipients: [{ recipientId: 'user-9', phone, channels: ['sms'] }] })),
  };
}

/** An UpdateItem of a limit counter (its key's partition starts `limit#`). */
function isCounterWrite(r: WireRequest): boolean {
  if (r.operation !== 'UpdateItem') return false;
  const key = (JSON.parse(r.body) as { Key?: { pk?: { S?: string } } }).Key;
  return key?.pk?.S?.startsWith(COUNTER_PARTITION_PREFIX) ?? false;
}

describe('DynamoDB throttling (a hot partition, the table quota) is backpressure, never loss (docs/scale.md)', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException'])(
    'a claim throttled on every SDK attempt (%s) sends nothing: the claim is handed back, the record comes back and is sent once',
    async (errorCode) => {
      const { key, body } = code(`evt-throttled-claim-${errorCode}`);
      const sender = rig.sender(new ControlledClock());
      // The ledger client's 4 attempts of the claim, each answered with the throttle; the partition cools after them.
      rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'claim', throttled(errorCode), 4));
      const first = sqsRecord(body);
      expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
      expect(rig.dynamoProxy.requests.filter((r) => r.fault === 'error-before' && r.ledgerWrite === 'claim')).toHaveLength(4);
      expect(rig.accepted(key)).toBe(0);
      expect(sender.metrics.get(METRIC.LedgerError)).toBe(1);
      // A claim that may have executed unseen is written as already released: nobody holds it.
      expect((await db.ledger.get(key))?.lastRelease).toBe('transient');

      rig.dynamoProxy.setDecider(() => undefined);
      expect(failedIds(await sender.invoke(sqsRecord(body, undefined, { receiveCount: 2 })))).toEqual([]);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
      expect(rig.accepted(key)).toBe(1);
    },
  );

  it('a limit counter throttled on every attempt (the hot number block) neither sends unchecked nor suppresses: the claim is handed back, then sent once', async () => {
    const { key, body } = code('evt-throttled-counter');
    const deferred: number[] = [];
    const sender = rig.sender(new ControlledClock(), undefined, { defer: async (_handle, seconds) => void deferred.push(seconds) }, { limitStore: rig.limitStore });
    rig.dynamoProxy.setDecider((r) => (isCounterWrite(r) ? throttled('ProvisionedThroughputExceededException') : undefined));
    const first = sqsRecord(body);
    expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
    expect(rig.dynamoProxy.requests.filter((r) => r.fault === 'error-before' && isCounterWrite(r))).toHaveLength(4);
    expect(rig.accepted(key)).toBe(0);
    expect(await db.ledger.get(key)).toMatchObject({
      state: 'PENDING',
      lastRelease: 'transient',
      failureReason: 'LimitStoreUnavailable: ProvisionedThroughputExceededException',
    });
    expect(sender.metrics.get(METRIC.LimitStoreError)).toBe(1);
    expect(sender.metrics.get(METRIC.Suppressed)).toBe(0);
    expect(deferred).toHaveLength(1);

    rig.dynamoProxy.setDecider(() => undefined);
    expect(failedIds(await sender.invoke(sqsRecord(body, undefined, { receiveCount: 2 })))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
  });
});
