import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { PENDING_SHARD_COUNT, pendingShardOf } from '../../functions/core/ledger/ledger-table';
import type { RedeliveryPolicy } from '../../functions/core/ledger/stale-claim-discovery';
import { DynamoRequestCounter } from '../../local/dynamo-request-counter';
import { LEDGER_INDEX_KEYS } from '../../local/gsi-write-model';
import { ReclaimerHarness } from '../reclaimer/reclaimer-harness';
import { orderShippedEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const DAY = 86_400_000;
const POLICY: RedeliveryPolicy = { maxReceiveCount: 5, retentionMs: 4 * DAY, longestRedeliveryGapMs: 180_000 };

/** One e-mail to the seller: one message, one key. */
function sellerEmail(eventId: string) {
  const event = orderShippedEvent({ eventId, recipients: [{ recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] }] });
  const key = idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' });
  return { body: JSON.stringify(event), key };
}

/** Whether the reclaimer's query of the pending index lists the key (every shard, any claim time). */
async function listedAsPending(key: string): Promise<boolean> {
  for (let shard = 0; shard < PENDING_SHARD_COUNT; shard += 1) {
    const page = await db.ledger.listStalePending(String(shard), Number.MAX_SAFE_INTEGER, 100);
    if (page.rows.some((row) => row.key === key)) return true;
  }
  return false;
}

describe('stale-claim discovery off the happy path', () => {
  it('a first delivery of an e-mail writes one claim and one outcome, each one unit, and no index entry', async () => {
    const counter = new DynamoRequestCounter((table) => (table === db.tableName ? LEDGER_INDEX_KEYS : [])).attach(db.client);
    const { body, key } = sellerEmail('evt-wu-first-delivery');
    const harness = new SenderHarness({ ledger: db.ledger, redelivery: POLICY });
    const before = counter.snapshot();
    const record = sqsRecord(body, undefined, { receiveCount: 1, sentAtMs: harness.clock.now() - 1_000 });
    expect(failedIds(await harness.invoke(record))).toEqual([]);
    const after = counter.snapshot();

    expect(after.byOperation.PutItem! - (before.byOperation.PutItem ?? 0)).toBe(1);
    expect(after.byOperation.UpdateItem! - (before.byOperation.UpdateItem ?? 0)).toBe(1);
    expect(after.writes - before.writes).toBe(2);
    // Table units as the server reports them: each item under 1 KB.
    expect(after.capacityUnits - before.capacityUnits).toBe(2);
    expect(after.gsiWriteUnits - before.gsiWriteUnits).toBe(0);
    const row = await db.ledger.get(key);
    expect(row?.state).toBe('SENT');
    expect(row?.pendingShard).toBeUndefined();
  });

  it('a worker that dies on an early receive leaves no index entry, and the redelivery takes its claim over and sends once', async () => {
    const { body, key } = sellerEmail('evt-dies-early-receive');
    const harness = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY });
    const sentAtMs = harness.clock.now();
    expect(await invokeOrKill(harness.invoke(sqsRecord(body, undefined, { receiveCount: 1, sentAtMs })))).toBe('killed');
    expect((await db.ledger.get(key))?.state).toBe('PENDING');
    expect(await listedAsPending(key)).toBe(false);

    harness.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(failedIds(await harness.invoke(sqsRecord(body, undefined, { receiveCount: 2, sentAtMs })))).toEqual([]);
    expect((await harness.callsPerKey()).get(key)).toBe(1);
    expect((await db.ledger.get(key))?.state).toBe('SENT');
  });

  it("a claim on the message's last receive before the dead-letter queue enters the index, so the reclaimer finds it", async () => {
    const { body, key } = sellerEmail('evt-dies-last-receive');
    const harness = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY });
    const last = sqsRecord(body, undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs: harness.clock.now() });
    expect(await invokeOrKill(harness.invoke(last))).toBe('killed');
    expect((await db.ledger.get(key))?.pendingShard).toBeDefined();
    expect(await listedAsPending(key)).toBe(true);
  });

  it('a takeover on the last receive puts a claim that was not indexed into the index', async () => {
    const { body, key } = sellerEmail('evt-takeover-last-receive');
    const first = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY });
    const sentAtMs = first.clock.now();
    expect(await invokeOrKill(first.invoke(sqsRecord(body, undefined, { receiveCount: 1, sentAtMs })))).toBe('killed');
    expect(await listedAsPending(key)).toBe(false);

    const second = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'takeOver', 'hang'), redelivery: POLICY, clock: first.clock });
    first.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const last = sqsRecord(body, undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs });
    expect(await invokeOrKill(second.invoke(last))).toBe('killed');
    expect(await listedAsPending(key)).toBe(true);
  });

  it('without a redelivery policy every claim is indexed (the conservative default)', async () => {
    const { body, key } = sellerEmail('evt-no-policy');
    const harness = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang') });
    expect(await invokeOrKill(harness.invoke(sqsRecord(body, undefined, { receiveCount: 1, sentAtMs: harness.clock.now() })))).toBe('killed');
    expect(await listedAsPending(key)).toBe(true);
  });

  it('with pendingIndexShards 64 a last-receive claim lands in a shard above 16, and only a reclaimer walking 64 shards finds it', async () => {
    let n = 0;
    let message = sellerEmail('evt-shard-above-16-0');
    while (Number(pendingShardOf(message.key, 64)) < PENDING_SHARD_COUNT) message = sellerEmail(`evt-shard-above-16-${(n += 1)}`);
    const { body, key } = message;
    const harness = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY, pendingIndexShards: 64 });
    const last = sqsRecord(body, undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs: harness.clock.now() });
    expect(await invokeOrKill(harness.invoke(last))).toBe('killed');
    expect((await db.ledger.get(key))?.pendingShard).toBe(pendingShardOf(key, 64));
    expect(await listedAsPending(key)).toBe(false);

    harness.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const reclaimer = (pendingIndexShards?: number) =>
      new ReclaimerHarness({ ledger: db.ledger, clock: harness.clock, outboxFile: harness.outboxFile, pendingIndexShards });
    // Walking only the first 16 shards, the reclaimer never sees it.
    await reclaimer().run();
    expect((await db.ledger.get(key))?.state).toBe('PENDING');
    await reclaimer(64).run();
    expect((await db.ledger.get(key))?.state).toBe('SENT');
    expect((await harness.callsPerKey()).get(key)).toBe(1);
  });
});
