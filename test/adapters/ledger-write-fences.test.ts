import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { newClaimRow, takeoverFields, type LedgerTiming } from '../../functions/core/ledger/ledger-decision';
import type { Claim, LedgerRow } from '../../functions/core/ledger/ledger-record';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS } from '../support/sender-harness';
import { currentRow, refusedAndUnchanged as refusedWrite } from '../support/ledger-assertions';

const db = useTestLedger();

const TIMING: LedgerTiming = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS };
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const LATER = T0 + CLAIM_TIMEOUT_MS + 1_000;

let rows = 0;
/** A first claim by `owner` at `at` on a fresh key, written and checked. */
async function claimed(owner = 'owner-1', at = T0): Promise<LedgerRow> {
  rows += 1;
  const eventId = `evt-fence-${rows}`;
  const key = idempotencyKey({ eventId, recipientId: 'r', channel: 'email', templateId: 't' });
  const row = newClaimRow({ subject: { key, eventId, recipientId: 'r', channel: 'email', templateId: 't', messageClass: 'transactional', occurredAt: new Date(at).toISOString() }, ownerToken: owner, nowMs: at, timing: TIMING });
  expect(await db.ledger.claim(row, at)).toEqual({ claimed: true });
  return row;
}

/** Takes `row` over as `owner` at `at`, fenced on the row's current version; the new claim. */
async function takenOver(row: LedgerRow, owner: string, at = LATER): Promise<Claim> {
  const fields = takeoverFields({ row, ownerToken: owner, nowMs: at, timing: TIMING, lastAmbiguousAt: undefined });
  expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
  return { key: row.key, ownerToken: owner, claimVersion: fields.claimVersion };
}

const current = (key: string) => currentRow(db.ledger, key);

const refusedAndUnchanged = (key: string, write: () => Promise<boolean>) => refusedWrite(db.ledger, key, write);

const claimOf = (row: LedgerRow): Claim => ({ key: row.key, ownerToken: row.ownerToken, claimVersion: row.claimVersion });
const sent = { state: 'SENT', providerMessageId: 'provider-1' } as const;

// Every conditional write, against a real DynamoDB-compatible server: each part of its condition
// is tested alone, all other parts holding, so dropping any one part of a condition fails a test.
describe('claim: absent, our own, or past its TTL', () => {
  it('admits a first claim on an absent key', async () => {
    const row = await claimed();
    expect(await current(row.key)).toMatchObject({ state: 'PENDING', ownerToken: 'owner-1', claimVersion: 1 });
  });

  it('admits its own retried claim on a live row (a lost response)', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.claim(row, T0 + 1)).toEqual({ claimed: true });
  });

  it('refuses another owner claiming in the same millisecond (same version, same lease end)', async () => {
    const row = await claimed('owner-1');
    const rival = newClaimRow({ subject: row, ownerToken: 'owner-2', nowMs: T0, timing: TIMING });
    expect(rival).toMatchObject({ claimVersion: row.claimVersion, leaseExpiresAt: row.leaseExpiresAt });
    const before = await current(row.key);
    expect(await db.ledger.claim(rival, T0)).toEqual({ claimed: false, existing: before });
    expect(await current(row.key)).toEqual(before);
  });

  it('refuses a late copy of its own claim once the row is settled', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.complete(claimOf(row), sent, T0 + 5, row.expiresAt)).toBe(true);
    const before = await current(row.key);
    expect(await db.ledger.claim(row, T0 + 6)).toEqual({ claimed: false, existing: before });
    expect(await current(row.key)).toEqual(before);
  });

  it('refuses a late copy of its own claim once the claim was released', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.release(claimOf(row), { reason: 'transient', detail: 'throttled', lastAmbiguousAt: undefined }, T0 + 5)).toBe(true);
    const before = await current(row.key);
    expect(await db.ledger.claim(row, T0 + 6)).toEqual({ claimed: false, existing: before });
    expect(await current(row.key)).toEqual(before);
  });

  it('refuses a late copy of its own claim once the row moved to another version with the same lease', async () => {
    const row = await claimed('owner-1');
    // Same owner token, same lease end, version 2: only the version tells it from the request's own write.
    expect(await db.ledger.takeOver(row.key, takeoverFields({ row, ownerToken: 'owner-1', nowMs: T0, timing: TIMING, lastAmbiguousAt: undefined }))).toBe(true);
    const before = await current(row.key);
    expect(before).toMatchObject({ claimVersion: 2, leaseExpiresAt: row.leaseExpiresAt, ownerToken: 'owner-1' });
    expect(await db.ledger.claim(row, T0 + 6)).toEqual({ claimed: false, existing: before });
    expect(await current(row.key)).toEqual(before);
  });

  it('admits another owner on a row whose TTL ended at exactly this second', async () => {
    const old = await claimed('owner-old', T0 - RETENTION_MS);
    const nowMs = old.expiresAt * 1000;
    const mine = newClaimRow({ subject: old, ownerToken: 'owner-new', nowMs, timing: TIMING });
    expect(await db.ledger.claim(mine, nowMs)).toEqual({ claimed: true });
    expect(await current(old.key)).toMatchObject({ ownerToken: 'owner-new', claimVersion: 1 });
  });

  it('refuses another owner while the row lives, even with under a second of its TTL left', async () => {
    const old = await claimed('owner-old', T0 - RETENTION_MS);
    const nowMs = old.expiresAt * 1000 - 1;
    const mine = newClaimRow({ subject: old, ownerToken: 'owner-new', nowMs, timing: TIMING });
    const before = await current(old.key);
    expect(await db.ledger.claim(mine, nowMs)).toEqual({ claimed: false, existing: before });
    expect(await current(old.key)).toEqual(before);
  });
});

describe('takeover: PENDING, and at the version it read (or already ours: a lost response)', () => {
  it('admits a PENDING row at the expected version, bumps the version and forgets the last release', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.release(claimOf(row), { reason: 'transient', detail: 'throttled', lastAmbiguousAt: undefined }, T0 + 5)).toBe(true);
    const released = await current(row.key);
    expect(released.lastRelease).toBe('transient');

    const fields = takeoverFields({ row: released, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: T0 + 7 });
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    const after = await current(row.key);
    expect(after).toMatchObject({ state: 'PENDING', claimVersion: 2, ownerToken: 'owner-2', attempts: 2, lastAmbiguousAt: T0 + 7 });
    expect(after.lastRelease).toBeUndefined();
  });

  it('refuses a row that is no longer PENDING, even at the expected version', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.complete(claimOf(row), sent, T0 + 5, row.expiresAt)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined })));
  });

  it('refuses a PENDING row whose version moved on since it was read', async () => {
    const row = await claimed('owner-1');
    const second = await takenOver(row, 'owner-2');
    await takenOver(await current(row.key), 'owner-3', LATER + 1);
    // Read at version 1: its new version (2) is neither the row's (3) nor is the row ours.
    expect(second.claimVersion).toBe(2);
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, takeoverFields({ row, ownerToken: 'owner-4', nowMs: LATER + 2, timing: TIMING, lastAmbiguousAt: undefined })));
  });

  it('admits its own takeover again (an SDK retry after the response was lost)', async () => {
    const row = await claimed('owner-1');
    const fields = takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: T0 });
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    expect(await current(row.key)).toMatchObject({ claimVersion: 2, ownerToken: 'owner-2', attempts: 2 });
  });

  it('gives the row the packed message it carries, bytes as written, and admits its own retry with it', async () => {
    const row = await claimed('owner-1');
    const request = new Uint8Array([1, 0x8b, 0x02, 0x80, 0x00, 0xff]);
    const fields = takeoverFields({ row: { ...row, pendingShard: undefined }, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined, request });
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    const after = await current(row.key);
    expect(after.request).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(after.request as Uint8Array).equals(Buffer.from(request))).toBe(true);
    // Settled, the row drops it.
    expect(await db.ledger.complete({ key: row.key, ownerToken: 'owner-2', claimVersion: 2 }, sent, LATER + 5, row.expiresAt)).toBe(true);
    expect((await current(row.key)).request).toBeUndefined();
  });

  it("refuses a retry-shaped takeover when the row at that version is another owner's", async () => {
    const row = await claimed('owner-1');
    await takenOver(row, 'owner-2');
    // Same read (version 1), same target version (2), but owner-2 won it: owner-3 must back off.
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, takeoverFields({ row, ownerToken: 'owner-3', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined })));
  });

  it('refuses a retry-shaped takeover by the same owner once the row moved past that version', async () => {
    const row = await claimed('owner-1');
    await takenOver(row, 'owner-2');
    await takenOver(await current(row.key), 'owner-2', LATER + 1);
    // owner-2 holds version 3; its stale request for version 2 must not pass as "already mine".
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER + 2, timing: TIMING, lastAmbiguousAt: undefined })));
  });

  it('refuses a late copy of its own takeover once it released the claim', async () => {
    const row = await claimed('owner-1');
    const fields = takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined });
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    const mine = { key: row.key, ownerToken: 'owner-2', claimVersion: 2 };
    expect(await db.ledger.release(mine, { reason: 'transient', detail: 'throttled', lastAmbiguousAt: undefined }, LATER + 1)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, fields));
  });

  it('refuses its own retried takeover once the row is settled', async () => {
    const row = await claimed('owner-1');
    const fields = takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined });
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    expect(await db.ledger.complete({ key: row.key, ownerToken: 'owner-2', claimVersion: 2 }, sent, LATER + 1, row.expiresAt)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.takeOver(row.key, fields));
  });
});

describe('complete: only the current holder (owner token and claim version)', () => {
  it('admits the holder and records the outcome', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.complete(claimOf(row), sent, T0 + 5, row.expiresAt)).toBe(true);
    expect(await current(row.key)).toMatchObject({ state: 'SENT', providerMessageId: 'provider-1', resolvedAt: T0 + 5 });
  });

  it('refuses another owner at the current version', async () => {
    const row = await claimed('owner-1');
    await refusedAndUnchanged(row.key, () => db.ledger.complete({ ...claimOf(row), ownerToken: 'owner-2' }, sent, T0 + 5, row.expiresAt));
  });

  it('refuses the same owner token at a superseded version', async () => {
    const row = await claimed('owner-1');
    await takenOver(row, 'owner-1');
    await refusedAndUnchanged(row.key, () => db.ledger.complete(claimOf(row), sent, LATER + 1, row.expiresAt));
  });
});

describe('release: only the current holder, and only while PENDING', () => {
  const transient = { reason: 'transient', detail: 'throttled', lastAmbiguousAt: undefined } as const;

  it('admits the holder: the lease ends now and the reason is recorded', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.release(claimOf(row), transient, T0 + 5)).toBe(true);
    expect(await current(row.key)).toMatchObject({ state: 'PENDING', leaseExpiresAt: T0 + 5, lastRelease: 'transient', failureReason: 'throttled' });
  });

  it('refuses another owner at the current version', async () => {
    const row = await claimed('owner-1');
    await refusedAndUnchanged(row.key, () => db.ledger.release({ ...claimOf(row), ownerToken: 'owner-2' }, transient, T0 + 5));
  });

  it('refuses the same owner token at a superseded version', async () => {
    const row = await claimed('owner-1');
    await takenOver(row, 'owner-1');
    await refusedAndUnchanged(row.key, () => db.ledger.release(claimOf(row), transient, LATER + 1));
  });

  it('refuses the holder once the row is settled (a late release never reopens a SENT row)', async () => {
    const row = await claimed('owner-1');
    expect(await db.ledger.complete(claimOf(row), sent, T0 + 5, row.expiresAt)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.release(claimOf(row), transient, T0 + 6));
  });
});

describe('recordDeliveryStatus: an existing row, and only a later event (time, then stage)', () => {
  const at = T0 + 60_000;
  const status = (s: string, t: number) => ({ status: s, at: t, source: 'ses' as const });

  it('reports no row and creates none for an unknown key', async () => {
    const key = idempotencyKey({ eventId: 'evt-fence-no-row', recipientId: 'r', channel: 'email', templateId: 't' });
    expect(await db.ledger.recordDeliveryStatus(key, status('Delivery', at), at)).toBe('no-row');
    expect(await db.ledger.get(key)).toBeUndefined();
  });

  it('records the first status of a row', async () => {
    const row = await claimed();
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Send', at), at)).toBe('recorded');
    expect(await current(row.key)).toMatchObject({ deliveryStatus: 'Send', deliveryStatusAt: at, deliveryStatusRank: 1 });
  });

  it('records a later event even of an earlier stage', async () => {
    const row = await claimed();
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Delivery', at), at)).toBe('recorded');
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Send', at + 1), at + 1)).toBe('recorded');
    expect((await current(row.key)).deliveryStatus).toBe('Send');
  });

  it('ignores an earlier event even of a later stage', async () => {
    const row = await claimed();
    // Delivery, not Send: an earlier Click after a mere Send would still be kept as the first proof of a send (issue 52).
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Delivery', at), at)).toBe('recorded');
    const before = await current(row.key);
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Click', at - 1), at + 1)).toBe('superseded');
    expect(await current(row.key)).toEqual(before);
  });

  it('at the same event time records a later stage only', async () => {
    const row = await claimed();
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Delivery', at), at)).toBe('recorded');
    const before = await current(row.key);
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Send', at), at + 1)).toBe('superseded');
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Delivery', at), at + 2)).toBe('superseded');
    expect(await current(row.key)).toEqual(before);
    expect(await db.ledger.recordDeliveryStatus(row.key, status('Bounce', at), at + 3)).toBe('recorded');
    expect((await current(row.key)).deliveryStatus).toBe('Bounce');
  });
});
