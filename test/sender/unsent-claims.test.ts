import { describe, expect, it } from 'vitest';
import type { Release } from '../../functions/core/ledger-decision';
import type { Claim } from '../../functions/core/ledger-record';
import { silentLog } from '../../functions/core/log-port';
import { METRIC } from '../../functions/core/metric-names';
import { InMemoryMetrics } from '../../functions/core/metrics-recorder';
import { UnsentClaims, type UnsentClaimsContext } from '../../functions/sender/unsent-claims';

const release: Release = { reason: 'transient', detail: 'LedgerError: InternalServerError', lastAmbiguousAt: undefined };
const claim = (n: number): Claim => ({ key: `key-${n}`, ownerToken: `owner-${n}`, claimVersion: 1 });
const held = (n: number) => ({ kind: 'held', claim: claim(n), release, dimensions: { channel: 'sms', messageClass: 'otp' } }) as const;

/** A ledger port that answers per key: released, condition failed, or an error (still down). */
function context(answer: (claim: Claim) => boolean | Error) {
  const calls: string[] = [];
  const metrics = new InMemoryMetrics();
  const ctx: UnsentClaimsContext = {
    ledger: {
      release: async (c) => {
        calls.push(c.key);
        const a = answer(c);
        if (a instanceof Error) throw a;
        return a;
      },
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

describe('the unsent claims an execution environment keeps', () => {
  it('releases every one once the ledger answers, and counts a claim someone else took first', async () => {
    const kept = new UnsentClaims();
    for (const n of [1, 2, 3, 4]) kept.keep(held(n));
    const { ctx, calls, metrics } = context((c) => c.key !== 'key-3');
    expect(await kept.releaseAll(ctx)).toEqual({ released: 3, alreadyTaken: 1, kept: 0 });
    expect(calls.sort()).toEqual(['key-1', 'key-2', 'key-3', 'key-4']);
    expect(metrics.get(METRIC.UnsentClaimReleased)).toBe(3);
    expect(metrics.get(METRIC.UnsentClaimAlreadyTaken)).toBe(1);
    expect(kept.size).toBe(0);
  });

  it('tries only the oldest while the ledger is still down, and keeps them all', async () => {
    const kept = new UnsentClaims();
    for (const n of [1, 2, 3]) kept.keep(held(n));
    const { ctx, calls } = context(() => new Error('still down'));
    expect(await kept.releaseAll(ctx)).toEqual({ released: 0, alreadyTaken: 0, kept: 3 });
    expect(calls).toEqual(['key-1']);
    expect(kept.holds(claim(2))).toBe(true);
  });

  it('keeps one whose own release fails again while the others go', async () => {
    const kept = new UnsentClaims();
    for (const n of [1, 2]) kept.keep(held(n));
    const { ctx } = context((c) => (c.key === 'key-2' ? new Error('timeout') : true));
    expect(await kept.releaseAll(ctx)).toEqual({ released: 1, alreadyTaken: 0, kept: 1 });
    expect(kept.holds(claim(2))).toBe(true);
    expect(kept.holds(claim(1))).toBe(false);
  });

  it('recognises a row by key, owner and version only, and forgets a claim taken back', () => {
    const kept = new UnsentClaims();
    kept.keep(held(1));
    expect(kept.holds({ ...claim(1), claimVersion: 2 })).toBe(false);
    expect(kept.holds({ ...claim(1), ownerToken: 'someone-else' })).toBe(false);
    expect(kept.holds(claim(1))).toBe(true);
    kept.forget(claim(1));
    expect(kept.holds(claim(1))).toBe(false);
  });

  it('recognises an unconfirmed takeover by the claim it would have written', () => {
    const kept = new UnsentClaims();
    const fields = { expectedClaimVersion: 3, claimVersion: 4, ownerToken: 'owner-t', claimedAt: 1, leaseExpiresAt: 2, attempts: 4, lastAmbiguousAt: undefined, expiresAt: 3, pendingShard: undefined };
    kept.keep({ kind: 'unconfirmed', attempt: { kind: 'takeover', key: 'key-t', fields }, release, dimensions: {} });
    expect(kept.holds({ key: 'key-t', ownerToken: 'owner-t', claimVersion: 4 })).toBe(true);
    expect(kept.holds({ key: 'key-t', ownerToken: 'owner-t', claimVersion: 3 })).toBe(false);
  });

  it('forgets the oldest beyond its capacity, and says which', () => {
    const kept = new UnsentClaims(2);
    expect(kept.keep(held(1))).toBeUndefined();
    expect(kept.keep(held(2))).toBeUndefined();
    expect(kept.keep(held(3))).toMatchObject({ claim: claim(1) });
    expect(kept.size).toBe(2);
    expect(kept.holds(claim(1))).toBe(false);
    expect(kept.holds(claim(3))).toBe(true);
  });
});
