import { describe, expect, it } from 'vitest';
import type { Release } from '../../functions/core/ledger/send-ledger';
import type { Claim } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { KeptLedgerWrites, type KeptLedgerWritesContext } from '../../functions/delivery/kept-ledger-writes';

const release: Release = { reason: 'transient', detail: 'LedgerError: InternalServerError', lastAmbiguousAt: undefined };
const claim = (n: number): Claim => ({ key: `key-${n}`, ownerToken: `owner-${n}`, claimVersion: 1 });
const held = (n: number) => ({ kind: 'release', claim: claim(n), release, dimensions: { channel: 'sms', messageClass: 'otp' } }) as const;
const sent = (n: number) =>
  ({ kind: 'complete', claim: claim(n), terminal: { state: 'SENT', providerMessageId: `id-${n}` }, nowMs: 5, expiresAt: 9, dimensions: {} }) as const;

/** The ledger still down, as the SDK reports it: a 500, which a retry can fix. */
const stillDown = () => Object.assign(new Error('still down'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
/** A request that timed out, as the Node HTTP handler reports it. */
const timedOut = () => Object.assign(new Error('Connection timed out after 1500 ms'), { name: 'TimeoutError' });

/** A ledger port that answers per key: released, condition failed, or an error (still down). */
function context(answer: (claim: Claim) => boolean | Error) {
  const calls: string[] = [];
  const metrics = new InMemoryMetrics();
  const reply = async (c: Claim) => {
    calls.push(c.key);
    const a = answer(c);
    if (a instanceof Error) throw a;
    return a;
  };
  const ctx: KeptLedgerWritesContext = {
    ledger: {
      release: reply,
      complete: reply,
      releaseUnconfirmed: async () => {
        throw new Error('not used here');
      },
    },
    clock: () => 1,
    metrics,
    log: silentLog,
    concurrency: 2,
  };
  return { ctx, calls, metrics };
}

describe('the ledger writes an execution environment keeps', () => {
  it('releases every one once the ledger answers, and counts a claim someone else took first', async () => {
    const kept = new KeptLedgerWrites();
    for (const n of [1, 2, 3, 4]) kept.keep(held(n));
    const { ctx, calls, metrics } = context((c) => c.key !== 'key-3');
    expect(await kept.writeAll(ctx)).toEqual({ written: 3, alreadyTaken: 1, kept: 0 });
    expect(calls.sort()).toEqual(['key-1', 'key-2', 'key-3', 'key-4']);
    expect(metrics.get(METRIC.UnsentClaimReleased)).toBe(3);
    expect(metrics.get(METRIC.UnsentClaimAlreadyTaken)).toBe(1);
    expect(kept.size).toBe(0);
  });

  it('tries only the oldest while the ledger is still down, and keeps them all', async () => {
    const kept = new KeptLedgerWrites();
    for (const n of [1, 2, 3]) kept.keep(held(n));
    const { ctx, calls } = context(() => stillDown());
    expect(await kept.writeAll(ctx)).toEqual({ written: 0, alreadyTaken: 0, kept: 3 });
    expect(calls).toEqual(['key-1']);
    expect(kept.holdsUnsent(claim(2))).toBe(true);
  });

  it('keeps one whose own release fails again while the others go', async () => {
    const kept = new KeptLedgerWrites();
    for (const n of [1, 2]) kept.keep(held(n));
    const { ctx } = context((c) => (c.key === 'key-2' ? timedOut() : true));
    expect(await kept.writeAll(ctx)).toEqual({ written: 1, alreadyTaken: 0, kept: 1 });
    expect(kept.holdsUnsent(claim(2))).toBe(true);
    expect(kept.holdsUnsent(claim(1))).toBe(false);
  });

  it('forgets only the unsent claim taken back: a kept outcome (a SENT not yet recorded) is never forgotten', () => {
    const kept = new KeptLedgerWrites();
    kept.keep(sent(1));
    kept.keep(held(2));
    kept.keep(held(3));
    // Forgetting the SENT write would leave the row PENDING for the reclaimer to send again.
    kept.forgetUnsent(claim(1));
    expect(kept.size).toBe(3);
    kept.forgetUnsent(claim(9));
    expect(kept.size).toBe(3);
    kept.forgetUnsent(claim(3));
    expect(kept.size).toBe(2);
    expect(kept.holdsUnsent(claim(2))).toBe(true);
    expect(kept.holdsUnsent(claim(3))).toBe(false);
    expect(kept.holdsUnsent({ ...claim(2), key: 'key-elsewhere' })).toBe(false);
  });

  it('makes one more round when it would end exactly at the deadline, none when it would end after', async () => {
    for (const [slackMs, rounds] of [[0, 1], [-1, 0]] as const) {
      const kept = new KeptLedgerWrites();
      kept.keep(held(1));
      const { ctx, calls } = context(() => true);
      // Time stands still: the first round ends exactly at (or 1 ms past) the deadline.
      await kept.writeUntil({ ...ctx, realTime: () => 0 }, { deadlineMs: 1_000 + 500 + slackMs, roundMs: 500 });
      expect(calls.length, `slack ${slackMs} ms`).toBe(rounds);
    }
  });

  it('recognises a row by key, owner and version only, and forgets a claim taken back', () => {
    const kept = new KeptLedgerWrites();
    kept.keep(held(1));
    expect(kept.holdsUnsent({ ...claim(1), claimVersion: 2 })).toBe(false);
    expect(kept.holdsUnsent({ ...claim(1), ownerToken: 'someone-else' })).toBe(false);
    expect(kept.holdsUnsent(claim(1))).toBe(true);
    kept.forgetUnsent(claim(1));
    expect(kept.holdsUnsent(claim(1))).toBe(false);
  });

  it('recognises an unconfirmed takeover by the claim it would have written', () => {
    const kept = new KeptLedgerWrites();
    const fields = { expectedClaimVersion: 3, claimVersion: 4, ownerToken: 'owner-t', claimedAt: 1, leaseExpiresAt: 2, attempts: 4, lastAmbiguousAt: undefined, expiresAt: 3, pendingShard: undefined };
    kept.keep({ kind: 'release-unconfirmed', attempt: { kind: 'takeover', key: 'key-t', fields }, release, dimensions: {} });
    expect(kept.holdsUnsent({ key: 'key-t', ownerToken: 'owner-t', claimVersion: 4 })).toBe(true);
    expect(kept.holdsUnsent({ key: 'key-t', ownerToken: 'owner-t', claimVersion: 3 })).toBe(false);
  });

  it('forgets the oldest beyond its capacity, and says which', () => {
    const kept = new KeptLedgerWrites(2);
    expect(kept.keep(held(1))).toBeUndefined();
    expect(kept.keep(held(2))).toBeUndefined();
    expect(kept.keep(held(3))).toMatchObject({ claim: claim(1) });
    expect(kept.size).toBe(2);
    expect(kept.holdsUnsent(claim(1))).toBe(false);
    expect(kept.holdsUnsent(claim(3))).toBe(true);
  });

  it('writes a kept outcome and counts it; an outcome whose claim was taken over first counts ClaimLost', async () => {
    const kept = new KeptLedgerWrites();
    kept.keep(sent(1));
    kept.keep(sent(2));
    const { ctx, metrics } = context((c) => c.key === 'key-1');
    expect(await kept.writeAll(ctx)).toEqual({ written: 1, alreadyTaken: 1, kept: 0 });
    expect(metrics.get(METRIC.OutcomeRecordedLater)).toBe(1);
    expect(metrics.get(METRIC.ClaimLost)).toBe(1);
    expect(metrics.get(METRIC.UnsentClaimReleased)).toBe(0);
  });

  it('never takes a kept outcome for an unsent claim', () => {
    const kept = new KeptLedgerWrites();
    kept.keep(sent(1));
    expect(kept.holdsUnsent(claim(1))).toBe(false);
  });

  // The interleaving run's counterexample (seed 1, path 183): an outcome written later at the clock's
  // time differed from its own held copy, which then landed and moved the SENT row's resolvedAt back.
  it('writes a kept outcome as the failed write was, at its own time, not at the time the ledger came back', async () => {
    const kept = new KeptLedgerWrites();
    kept.keep(sent(1));
    const writes: { nowMs: number; expiresAt: number }[] = [];
    const { ctx } = context(() => true);
    const ledger = { ...ctx.ledger, complete: async (_c: Claim, _o: unknown, nowMs: number, expiresAt: number) => (writes.push({ nowMs, expiresAt }), true) };
    await kept.writeAll({ ...ctx, ledger, clock: () => 1_000 });
    expect(writes).toEqual([{ nowMs: 5, expiresAt: 9 }]);
  });

  it('retries until the ledger answers, a second apart, and stops before a round could outlast the deadline', async () => {
    const kept = new KeptLedgerWrites();
    kept.keep(held(1));
    let down = 2;
    const { ctx, calls } = context(() => (down-- > 0 ? stillDown() : true));
    await kept.writeAll(ctx);
    const started = Date.now();
    await kept.writeUntil(ctx, { deadlineMs: started + 60_000, roundMs: 10 });
    expect(calls).toHaveLength(3);
    expect(kept.size).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);

    kept.keep(held(2));
    const { ctx: down2, calls: calls2 } = context(() => stillDown());
    await kept.writeUntil(down2, { deadlineMs: Date.now() + 1_500, roundMs: 1_000 });
    expect(calls2).toHaveLength(0);
    expect(kept.size).toBe(1);
  });
});
