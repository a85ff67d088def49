import { describe, expect, it } from 'vitest';
import { decideOnExistingRow, newClaimRow, takeoverFields, takeoverNeedsRequest } from '../../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';

const timing = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
const t0 = Date.parse('2026-11-29T12:00:00Z');
const base = newClaimRow({ subject: { key: 'k'.repeat(64), eventId: 'e', recipientId: 'r', channel: 'sms', templateId: 't', messageClass: 'otp', occurredAt: 'x' }, ownerToken: 'owner-1', nowMs: t0, timing });
const row = (patch: Partial<LedgerRow>): LedgerRow => ({ ...base, ...patch });

describe('ledger state machine (pure)', () => {
  it('a first claim is PENDING, version 1, leased for the claim timeout, TTL at the retention horizon, in the pending index', () => {
    expect(base).toMatchObject({ state: 'PENDING', claimVersion: 1, attempts: 1, leaseExpiresAt: t0 + 120_000 });
    expect(base.expiresAt).toBe(Math.ceil((t0 + timing.retentionMs) / 1000));
    expect(base.pendingShard).toMatch(/^\d+$/);
  });

  it.each(['SENT', 'FAILED', 'UNKNOWN'] as const)('%s is done', (state) => {
    expect(decideOnExistingRow(row({ state }), t0 + 1)).toEqual({ kind: 'done', state });
  });

  it('a PENDING row within its lease belongs to another worker', () => {
    expect(decideOnExistingRow(base, t0 + 119_999)).toEqual({ kind: 'back-off', leaseRemainingMs: 1 });
  });

  it('a PENDING row whose lease ran out without a release is an ambiguous takeover, ambiguous until its lease ended', () => {
    // The dead owner may have called the provider at any moment before its lease ran out.
    expect(decideOnExistingRow(base, t0 + 120_000)).toEqual({ kind: 'take-over', lastAmbiguousAt: t0 + 120_000 });
    expect(decideOnExistingRow(row({ lastAmbiguousAt: t0 - 5_000 }), t0 + 130_000)).toEqual({
      kind: 'take-over',
      lastAmbiguousAt: t0 + 120_000,
    });
  });

  it('a row released after a transient failure keeps an earlier attempt\'s ambiguity', () => {
    expect(decideOnExistingRow(row({ lastRelease: 'transient', leaseExpiresAt: t0 + 5, lastAmbiguousAt: t0 + 2 }), t0 + 5)).toEqual({
      kind: 'take-over',
      lastAmbiguousAt: t0 + 2,
    });
  });

  it('a row released after a transient failure is taken over with no ambiguity', () => {
    expect(decideOnExistingRow(row({ lastRelease: 'transient', leaseExpiresAt: t0 + 5 }), t0 + 5)).toEqual({
      kind: 'take-over',
      lastAmbiguousAt: undefined,
    });
  });

  it('a row released as ambiguous keeps the time of its latest ambiguous attempt', () => {
    expect(decideOnExistingRow(row({ lastRelease: 'ambiguous', leaseExpiresAt: t0 + 5, lastAmbiguousAt: t0 + 3 }), t0 + 5)).toEqual({
      kind: 'take-over',
      lastAmbiguousAt: t0 + 3,
    });
  });

  it('a PENDING row whose claim this environment abandoned unsent is taken over at once, keeping only an earlier ambiguity', () => {
    const abandoned = { abandonedUnsent: true };
    // Within its lease (no back-off from our own dead claim), and after it (no "owner died" ambiguity).
    expect(decideOnExistingRow(base, t0 + 1, abandoned)).toEqual({ kind: 'take-over', lastAmbiguousAt: undefined });
    expect(decideOnExistingRow(base, t0 + 130_000, abandoned)).toEqual({ kind: 'take-over', lastAmbiguousAt: undefined });
    expect(decideOnExistingRow(row({ lastAmbiguousAt: t0 - 5_000 }), t0 + 130_000, abandoned)).toEqual({
      kind: 'take-over',
      lastAmbiguousAt: t0 - 5_000,
    });
    // Settled or expired rows are what they are.
    expect(decideOnExistingRow(row({ state: 'SENT' }), t0 + 1, abandoned)).toEqual({ kind: 'done', state: 'SENT' });
    expect(decideOnExistingRow(base, base.expiresAt * 1000, abandoned)).toEqual({ kind: 'expired' });
  });

  it('a row past its TTL counts as absent, whatever its state', () => {
    expect(decideOnExistingRow(row({ state: 'SENT' }), base.expiresAt * 1000)).toEqual({ kind: 'expired' });
  });

  it('a takeover is fenced on the old version and bumps version and attempts', () => {
    expect(takeoverFields({ row: base, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: t0 })).toMatchObject({
      expectedClaimVersion: 1,
      claimVersion: 2,
      ownerToken: 'owner-2',
      attempts: 2,
      leaseExpiresAt: t0 + 320_000,
      lastAmbiguousAt: t0,
    });
  });
});

describe('which takeovers enter the pending index', () => {
  const outside = row({ pendingShard: undefined });

  it('a takeover of a row outside the index puts it there, unless told the queue will bring the message back', () => {
    expect(takeoverFields({ row: outside, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined }).pendingShard).toBe(base.pendingShard);
    expect(takeoverFields({ row: outside, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined, discoverable: true }).pendingShard).toBe(base.pendingShard);
    expect(takeoverFields({ row: outside, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined, discoverable: false }).pendingShard).toBeUndefined();
  });

  it('a row already in the index stays there without writing its shard again', () => {
    expect(takeoverFields({ row: base, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined }).pendingShard).toBeUndefined();
    expect(takeoverFields({ row: base, ownerToken: 'owner-2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined, discoverable: false }).pendingShard).toBeUndefined();
  });
});

describe('which claims keep the message for the reclaimer', () => {
  const subject = { key: 'k'.repeat(64), eventId: 'e', recipientId: 'r', channel: 'sms' as const, templateId: 't', messageClass: 'otp', occurredAt: 'x' };
  const packed = new Uint8Array([1, 2, 3]);

  it('a first claim keeps it only when it enters the pending index: the happy path writes identifiers only', () => {
    expect(newClaimRow({ subject, ownerToken: 'o', nowMs: t0, timing, discoverable: true, request: packed }).request).toBe(packed);
    expect(newClaimRow({ subject, ownerToken: 'o', nowMs: t0, timing, request: packed }).request).toBe(packed);
    expect('request' in newClaimRow({ subject, ownerToken: 'o', nowMs: t0, timing, discoverable: false, request: packed })).toBe(false);
    expect('request' in newClaimRow({ subject, ownerToken: 'o', nowMs: t0, timing, discoverable: true })).toBe(false);
  });

  it('a takeover gives it to a row that is in the index after it and keeps none; any other row keeps what it holds', () => {
    const outside = row({ pendingShard: undefined });
    expect(takeoverNeedsRequest(outside, { discoverable: true })).toBe(true);
    expect(takeoverNeedsRequest(outside)).toBe(true);
    expect(takeoverNeedsRequest(outside, { discoverable: false })).toBe(false);
    expect(takeoverNeedsRequest(base, { discoverable: false })).toBe(true); // in the index already
    expect(takeoverNeedsRequest(row({ request: packed }), { discoverable: true })).toBe(false);
    expect(takeoverNeedsRequest({ ...outside, request: packed }, { discoverable: true })).toBe(false);
  });

  it('a takeover writes the message it is given, and nothing when given none', () => {
    expect(takeoverFields({ row: base, ownerToken: 'o2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined, request: packed }).request).toBe(packed);
    expect('request' in takeoverFields({ row: base, ownerToken: 'o2', nowMs: t0 + 200_000, timing, lastAmbiguousAt: undefined })).toBe(false);
  });
});

describe('pending index shards', () => {
  it('are FNV-1a (32 bit) of the key, so a key keeps its shard across deployments', async () => {
    const { pendingShardOf } = await import('../../../functions/core/ledger/ledger-table');
    expect(pendingShardOf('', 2 ** 32)).toBe(String(0x811c9dc5));
    expect(pendingShardOf('a', 2 ** 32)).toBe(String(0xe40c292c));
    expect(pendingShardOf('foobar', 2 ** 32)).toBe(String(0xbf9cf968));
    expect(pendingShardOf('foobar')).toBe(String(0xbf9cf968 % 16));
  });

  it('spread hex keys evenly over all shards', async () => {
    const { pendingShardOf, PENDING_SHARD_COUNT } = await import('../../../functions/core/ledger/ledger-table');
    const { idempotencyKey } = await import('../../../functions/core/event/idempotency-key');
    const counts = new Map<string, number>();
    for (let i = 0; i < 3200; i += 1) {
      const shard = pendingShardOf(idempotencyKey({ eventId: `e${i}`, recipientId: 'r', channel: 'sms', templateId: 't' }));
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect(counts.size).toBe(PENDING_SHARD_COUNT);
    for (const n of counts.values()) expect(n).toBeGreaterThan(100);
  });
});
