import { sendingLedger } from '../../functions/adapters/ledger-clients';
import { describe, expect, it } from 'vitest';
import { PENDING_SHARD_COUNT } from '../../functions/core/ledger/ledger-table';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import type { StalePendingEntry, StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { ReclaimerHarness, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

/** The test ledger, with its pending index replaced by `listStalePending`. */
function withPendingIndex(listStalePending: StalePendingSource['listStalePending']): SendLedger & StalePendingSource {
  return sendingLedger(db.ledger, { listStalePending });
}

describe('the reclaimer calls a claim stale only once it is older than the claim timeout', () => {
  it('asks every shard for claims made before exactly now minus the claim timeout', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const asked: { shard: string; claimedBefore: number }[] = [];
    const ledger = withPendingIndex(async (shard, claimedBefore, limit, cursor) => {
      asked.push({ shard, claimedBefore });
      return db.ledger.listStalePending(shard, claimedBefore, limit, cursor);
    });
    await new ReclaimerHarness({ ledger, clock: sender.clock, outboxFile: sender.outboxFile }).run();

    expect(asked.map((a) => a.shard).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: PENDING_SHARD_COUNT }, (_, i) => String(i)),
    );
    expect(new Set(asked.map((a) => a.claimedBefore))).toEqual(new Set([sender.clock.now() - CLAIM_TIMEOUT_MS]));
  });

  it('leaves a claim exactly the claim timeout old, and settles one a millisecond older', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const now = sender.clock.now();
    const [justStale] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-cutoff-older', messageClass: 'otp' }), now - CLAIM_TIMEOUT_MS - 1);
    const [atCutoff] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-cutoff-exact', messageClass: 'otp' }), now - CLAIM_TIMEOUT_MS);

    const summary = await new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile }).run();

    expect(summary).toMatchObject({ found: 1, resent: 1, skipped: 0 });
    expect(await db.ledger.get(justStale!.key)).toMatchObject({ state: 'SENT' });
    expect(await db.ledger.get(atCutoff!.key)).toEqual(atCutoff);
  });

  it('re-checks the age on its consistent read: an index entry exactly at the cutoff is skipped', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const cutoff = sender.clock.now() - CLAIM_TIMEOUT_MS;
    const [atCutoff] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-cutoff-reread', messageClass: 'otp' }), cutoff);
    const entry: StalePendingEntry = { key: atCutoff!.key, claimedAt: cutoff };
    // An index that is behind (or wrong) lists the row anyway.
    const ledger = withPendingIndex(async (shard) => ({ rows: shard === '0' ? [entry] : [], cursor: undefined }));

    const summary = await new ReclaimerHarness({ ledger, clock: sender.clock, outboxFile: sender.outboxFile }).run();

    expect(summary).toMatchObject({ found: 0, skipped: 1 });
    expect(await db.ledger.get(atCutoff!.key)).toEqual(atCutoff);
  });
});
