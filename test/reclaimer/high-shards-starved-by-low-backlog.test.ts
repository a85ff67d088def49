import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutboxProvider, readOutbox } from '../../functions/adapters/outbox-provider';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { PageCursor, StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { createReclaimer } from '../../functions/reclaimer/create-reclaimer';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS } from '../support/sender-harness';
import { tempDir } from '../support/temp-dir';
import { seedDeadClaims, TIMING } from './reclaimer-harness';

const db = useTestLedger();
const SHARDS = 64;

/**
 * A pending index of `SHARDS` shards: `backlog` entries in each of `backlogShards` that never leave it (rows no run
 * can finish), and `rows` in their own shards. Records which shards were queried.
 */
function indexWith({ backlogShards, backlog, rows }: { backlogShards: readonly number[]; backlog: number; rows: ReadonlyMap<string, { key: string; claimedAt: number }> }) {
  const queried = new Set<string>();
  const pending: StalePendingSource = {
    async listStalePending(shard, _claimedBefore, limit, cursor?: PageCursor) {
      queried.add(shard);
      const all = backlogShards.includes(Number(shard))
        ? Array.from({ length: backlog }, (_, i) => ({ key: `unfinishable-${shard}-${i}`, claimedAt: 1 }))
        : [...rows].filter(([s]) => s === shard).map(([, row]) => row);
      const from = typeof cursor?.from === 'number' ? cursor.from : 0;
      const page = all.slice(from, from + limit);
      return { rows: page, cursor: from + limit < all.length ? { from: from + limit } : undefined };
    },
  };
  return { pending, queried };
}

/**
 * Review defect 4: every run started at shard 0, first come first served, so with 64 shards, 26 rows no run can
 * finish in each of shards 0-19 and one stale row in shard 56, the run cap (500 entries, 25 a page) was spent on
 * shards 0-19 before shard 56 was ever asked: six runs, and that row was never examined. Every shard is now given its
 * fair share of a run's cap first, from a start that turns with each run.
 */
describe('rows in high shards starved by a backlog in low shards (review defect 4)', () => {
  it('64 shards, a backlog in shards 0-19, one stale row in shard 56: examined and settled within six runs', async () => {
    const clock = new ControlledClock();
    const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-starved-shard-56', messageClass: 'otp' }), clock.now() - CLAIM_TIMEOUT_MS - 60_000);
    const { pending, queried } = indexWith({
      backlogShards: Array.from({ length: 20 }, (_, i) => i),
      backlog: 26,
      rows: new Map([['56', { key: row!.key, claimedAt: row!.claimedAt }]]),
    });
    const outboxFile = join(tempDir('notifier-starved-shard-'), 'outbox.jsonl');
    const outbox = new OutboxProvider(outboxFile, clock.now);
    const reclaimer = createReclaimer({
      ledger: db.ledger,
      pending,
      providers: { email: outbox, sms: outbox, push: outbox },
      metrics: new InMemoryMetrics(),
      log: silentLog,
      clock: clock.now,
      newOwnerToken: randomUUID,
      timing: TIMING,
      sendTimeoutMs: 2_000,
      messageClasses: buildMessageClassRegistry(),
      limits: { timeBudgetMs: 20_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 8 },
      pendingIndexShards: SHARDS,
    });

    for (let run = 0; run < 6 && (await db.ledger.get(row!.key))?.state === 'PENDING'; run += 1) {
      await reclaimer.run();
      clock.advance(60_000);
    }
    expect(queried.has('56'), 'shard 56 examined').toBe(true);
    expect((await db.ledger.get(row!.key))?.state).toBe('SENT');
    expect((await readOutbox(outboxFile)).length).toBe(1);
  });

  it('with a cap smaller than the shards (10 entries, 64 shards), every shard is asked within ceil(64 / 10) runs', async () => {
    const clock = new ControlledClock();
    const { pending, queried } = indexWith({ backlogShards: Array.from({ length: SHARDS }, (_, i) => i), backlog: 26, rows: new Map() });
    const reclaimer = createReclaimer({
      ledger: db.ledger,
      pending,
      providers: { email: new OutboxProvider(join(tempDir('notifier-starved-cap-'), 'outbox.jsonl'), clock.now), sms: new OutboxProvider(join(tempDir('notifier-starved-cap-'), 'o.jsonl'), clock.now), push: new OutboxProvider(join(tempDir('notifier-starved-cap-'), 'p.jsonl'), clock.now) },
      metrics: new InMemoryMetrics(),
      log: silentLog,
      clock: clock.now,
      newOwnerToken: randomUUID,
      timing: TIMING,
      sendTimeoutMs: 2_000,
      messageClasses: buildMessageClassRegistry(),
      limits: { timeBudgetMs: 20_000, maxRowsPerRun: 10, pageSize: 25, concurrency: 8 },
      pendingIndexShards: SHARDS,
    });
    for (let run = 0; run < Math.ceil(SHARDS / 10); run += 1) {
      await reclaimer.run();
      clock.advance(60_000);
    }
    expect(queried.size).toBe(SHARDS);
  });
});
