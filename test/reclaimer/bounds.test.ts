import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { LEDGER_TABLE, PENDING_SHARD_COUNT } from '../../functions/core/ledger/ledger-table';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { ReclaimerHarness, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

const ROWS = 10;

async function seed(sender: SenderHarness, prefix: string) {
  const keys: string[] = [];
  for (let i = 0; i < ROWS; i += 1) {
    const rows = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: `${prefix}-${i}`, messageClass: 'otp' }), sender.clock.now());
    keys.push(...rows.map((r) => r.key));
  }
  sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
  return keys;
}

/** Every row is either settled with exactly one provider call, or untouched (still the seeded claim). */
async function assertNothingHalfDone(sender: SenderHarness, keys: string[]) {
  const calls = await sender.callsPerKey();
  let settled = 0;
  for (const key of keys) {
    const row = await db.ledger.get(key);
    if (row?.state === 'SENT') {
      settled += 1;
      expect(calls.get(key)).toBe(1);
    } else {
      expect(row).toMatchObject({ state: 'PENDING', claimVersion: 1, attempts: 1 });
      expect(calls.get(key) ?? 0).toBe(0);
    }
  }
  return settled;
}

describe('a reclaimer run is bounded and stops cleanly', () => {
  it('stops at the row cap; the next runs pick up the rest', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const keys = await seed(sender, 'evt-bounds-cap');
    const reclaimer = new ReclaimerHarness({
      ledger: db.ledger,
      clock: sender.clock,
      outboxFile: sender.outboxFile,
      limits: { maxRowsPerRun: 4 },
    });

    const first = await reclaimer.run();
    expect(first).toMatchObject({ found: 4, resent: 4, stoppedEarly: true });
    expect(await assertNothingHalfDone(sender, keys)).toBe(4);

    expect(await reclaimer.run()).toMatchObject({ found: 4, stoppedEarly: true });
    const last = await reclaimer.run();
    expect(last).toMatchObject({ found: 2, stoppedEarly: false });
    expect(await assertNothingHalfDone(sender, keys)).toBe(ROWS);
  });

  it('stops starting rows when the time budget is spent; rows not started are untouched', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const keys = await seed(sender, 'evt-bounds-budget');
    // Each provider call takes 6 s of (controlled) time; the budget is 10 s, one row at a time.
    const slowCall = (inner: DeliveryProvider): DeliveryProvider => ({
      async send(request, signal) {
        sender.clock.advance(6_000);
        return inner.send(request, signal);
      },
    });
    const reclaimer = new ReclaimerHarness({
      ledger: db.ledger,
      clock: sender.clock,
      outboxFile: sender.outboxFile,
      wrapProvider: slowCall,
      limits: { timeBudgetMs: 10_000, concurrency: 1 },
    });

    const first = await reclaimer.run();
    expect(first.stoppedEarly).toBe(true);
    expect(first.resent).toBe(2); // started at 0 s and 6 s; at 12 s the budget is spent
    expect(await assertNothingHalfDone(sender, keys)).toBe(2);

    for (let run = 0; run < 10 && (await assertNothingHalfDone(sender, keys)) < ROWS; run += 1) await reclaimer.run();
    expect(await assertNothingHalfDone(sender, keys)).toBe(ROWS);
  });
});

describe('how the reclaimer reads the ledger', () => {
  it('queries each shard of the pending index on the sort key, and never scans', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    await seed(sender, 'evt-bounds-queries');
    const client = new DynamoDBClient({
      endpoint: db.endpoint === 'aws' ? undefined : db.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const requests: { command: string; input: Record<string, unknown> }[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        requests.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name: 'recordRequests' },
    );
    const ledger = new DynamoDbLedger(client, db.tableName);
    const reclaimer = new ReclaimerHarness({ ledger, clock: sender.clock, outboxFile: sender.outboxFile });
    expect((await reclaimer.run()).found).toBeGreaterThanOrEqual(ROWS);
    client.destroy();

    expect(requests.some((r) => r.command === 'ScanCommand')).toBe(false);
    const queries = requests.filter((r) => r.command === 'QueryCommand');
    expect(new Set(queries.map((q) => (q.input.ExpressionAttributeValues as Record<string, unknown>)[':shard'])).size).toBe(
      PENDING_SHARD_COUNT,
    );
    for (const query of queries) {
      expect(query.input).toMatchObject({
        IndexName: LEDGER_TABLE.pendingIndex.name,
        KeyConditionExpression: '#pendingShard = :shard AND #claimedAt < :before',
      });
    }
    // Only fenced updates and consistent reads besides the queries: the reclaimer never creates a row.
    expect(new Set(requests.map((r) => r.command))).toEqual(new Set(['QueryCommand', 'GetItemCommand', 'UpdateItemCommand']));
  });
});
