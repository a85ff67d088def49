import { describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { newClaimRow, takeoverFields, type LedgerTiming } from '../../functions/core/ledger/ledger-decision';
import type { Release, TakeoverFields } from '../../functions/core/ledger/send-ledger';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { pendingShardOf } from '../../functions/core/ledger/ledger-table';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS } from '../support/sender-harness';
import { currentRow, refusedAndUnchanged as refusedWrite } from '../support/ledger-assertions';

const db = useTestLedger();

const TIMING: LedgerTiming = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS };
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const LATER = T0 + CLAIM_TIMEOUT_MS + 1_000;
const TRANSIENT: Release = { reason: 'transient', detail: 'LedgerError: TimeoutError', lastAmbiguousAt: undefined };

let rows = 0;
/** A first claim row by `owner` on a fresh key, not yet written. */
function claimRow(owner: string, at = T0, discoverable = true): LedgerRow {
  rows += 1;
  const eventId = `evt-unconfirmed-${rows}`;
  const key = idempotencyKey({ eventId, recipientId: 'r', channel: 'sms', templateId: 't' });
  return newClaimRow({ subject: { key, eventId, recipientId: 'r', channel: 'sms', templateId: 't', messageClass: 'otp', occurredAt: new Date(at).toISOString() }, ownerToken: owner, nowMs: at, timing: TIMING, discoverable });
}

const current = (key: string) => currentRow(db.ledger, key);

const refusedAndUnchanged = (key: string, write: () => Promise<boolean>) => refusedWrite(db.ledger, key, write);

/**
 * A claim whose request failed with an unknown result is handed back as already released, whether
 * or not it executed: a late copy of it then fails its own condition.
 */
describe('releasing an unconfirmed claim', () => {
  it('that never executed: writes the row as released (lease ends now, reason and detail recorded)', async () => {
    const row = claimRow('owner-1');
    expect(await db.ledger.releaseUnconfirmed({ kind: 'claim', row }, TRANSIENT, T0 + 50)).toBe(true);
    const released = await current(row.key);
    expect(released).toEqual({ ...row, leaseExpiresAt: T0 + 50, updatedAt: T0 + 50, lastRelease: 'transient', failureReason: 'LedgerError: TimeoutError' });
    // A late copy of the claim now finds the row changed and is refused.
    expect(await db.ledger.claim(row, T0 + 60)).toMatchObject({ claimed: false });
  });

  it('that executed: releases it the same way', async () => {
    const row = claimRow('owner-1');
    expect(await db.ledger.claim(row, T0)).toEqual({ claimed: true });
    expect(await db.ledger.releaseUnconfirmed({ kind: 'claim', row }, TRANSIENT, T0 + 50)).toBe(true);
    expect(await current(row.key)).toMatchObject({ state: 'PENDING', ownerToken: 'owner-1', claimVersion: 1, leaseExpiresAt: T0 + 50, lastRelease: 'transient' });
  });

  it('keeps the ambiguity the release carries, and adds none when it carries none', async () => {
    const ambiguous = claimRow('owner-1');
    const since = T0 - 5_000;
    expect(await db.ledger.releaseUnconfirmed({ kind: 'claim', row: ambiguous }, { reason: 'ambiguous', detail: 'x', lastAmbiguousAt: since }, T0 + 50)).toBe(true);
    expect(await current(ambiguous.key)).toMatchObject({ lastRelease: 'ambiguous', lastAmbiguousAt: since });
    const plain = claimRow('owner-1');
    await db.ledger.releaseUnconfirmed({ kind: 'claim', row: plain }, TRANSIENT, T0 + 50);
    expect((await current(plain.key)).lastAmbiguousAt).toBeUndefined();
  });

  it("refuses when another owner's live claim holds the row (ours never executed)", async () => {
    const theirs = claimRow('owner-2');
    expect(await db.ledger.claim(theirs, T0)).toEqual({ claimed: true });
    const ours = { ...theirs, ownerToken: 'owner-1' };
    await refusedAndUnchanged(theirs.key, () => db.ledger.releaseUnconfirmed({ kind: 'claim', row: ours }, TRANSIENT, T0 + 50));
  });

  it('refuses once our own claim is settled: a SENT row is never reopened', async () => {
    const row = claimRow('owner-1');
    await db.ledger.claim(row, T0);
    expect(await db.ledger.complete(row, { state: 'SENT', providerMessageId: 'p-1' }, T0 + 10, row.expiresAt)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.releaseUnconfirmed({ kind: 'claim', row }, TRANSIENT, T0 + 50));
  });

  it('refuses when the row moved on to another version', async () => {
    const row = claimRow('owner-1');
    await db.ledger.claim(row, T0);
    await db.ledger.release(row, TRANSIENT, T0 + 10);
    expect(await db.ledger.takeOver(row.key, takeoverFields({ row: await current(row.key), ownerToken: 'owner-1', nowMs: T0 + 20, timing: TIMING, lastAmbiguousAt: undefined }))).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.releaseUnconfirmed({ kind: 'claim', row }, TRANSIENT, T0 + 50));
  });

  it('writes over a row past its TTL (it counts as absent)', async () => {
    const old = claimRow('owner-2', T0 - RETENTION_MS - 10_000);
    await db.ledger.claim(old, T0 - RETENTION_MS - 10_000);
    const ours = { ...claimRow('owner-1'), key: old.key };
    expect(await db.ledger.releaseUnconfirmed({ kind: 'claim', row: ours }, TRANSIENT, T0)).toBe(true);
    expect(await current(old.key)).toMatchObject({ ownerToken: 'owner-1', lastRelease: 'transient' });
  });
});

describe('releasing an unconfirmed takeover', () => {
  /** A row claimed by owner-1 and left stale, and the takeover fields owner-2 would write. */
  async function staleRowAndTakeover(lastAmbiguousAt: number | undefined = undefined, discoverable = true): Promise<{ row: LedgerRow; fields: TakeoverFields }> {
    const row = claimRow('owner-1', T0, discoverable);
    await db.ledger.claim(row, T0);
    return { row, fields: takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt, discoverable }) };
  }

  it('that never executed: the row ends released at the takeover’s version, owner and attempt', async () => {
    const { row, fields } = await staleRowAndTakeover();
    expect(await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50)).toBe(true);
    expect(await current(row.key)).toEqual({
      ...row,
      claimVersion: 2,
      ownerToken: 'owner-2',
      claimedAt: LATER,
      leaseExpiresAt: LATER + 50,
      attempts: 2,
      updatedAt: LATER + 50,
      expiresAt: fields.expiresAt,
      lastRelease: 'transient',
      failureReason: 'LedgerError: TimeoutError',
    });
    // A late copy of the takeover now finds the version moved and is refused.
    expect(await db.ledger.takeOver(row.key, fields)).toBe(false);
  });

  it('that would have given the row its packed message: the released row keeps it, executed or not', async () => {
    const request = new Uint8Array([1, 2, 3, 4]);
    for (const executed of [false, true]) {
      const { row, fields: plain } = await staleRowAndTakeover(undefined, false);
      const fields = { ...plain, request };
      if (executed) expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
      expect(await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50)).toBe(true);
      const released = await current(row.key);
      expect(released).toMatchObject({ claimVersion: 2, lastRelease: 'transient' });
      expect(Buffer.from(released.request as Uint8Array).equals(Buffer.from(request))).toBe(true);
    }
  });

  it('that executed: releases it the same way', async () => {
    const { row, fields } = await staleRowAndTakeover();
    expect(await db.ledger.takeOver(row.key, fields)).toBe(true);
    expect(await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50)).toBe(true);
    expect(await current(row.key)).toMatchObject({ claimVersion: 2, ownerToken: 'owner-2', leaseExpiresAt: LATER + 50, lastRelease: 'transient' });
  });

  it.each([
    ['from the takeover (the old attempt may have sent)', LATER - 10_000, undefined, LATER - 10_000],
    ['from the release (this attempt may have sent)', undefined, LATER + 40, LATER + 40],
    ['the release’s, when both have one', LATER - 10_000, LATER + 40, LATER + 40],
  ] as const)('keeps the ambiguity %s', async (_from, takeoverSince, releaseSince, expected) => {
    const { row, fields } = await staleRowAndTakeover(takeoverSince);
    const release: Release = { reason: 'ambiguous', detail: 'x', lastAmbiguousAt: releaseSince };
    expect(await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, release, LATER + 50)).toBe(true);
    expect((await current(row.key)).lastAmbiguousAt).toBe(expected);
  });

  it('adds no ambiguity when neither has one', async () => {
    const { row, fields } = await staleRowAndTakeover();
    await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50);
    expect((await current(row.key)).lastAmbiguousAt).toBeUndefined();
  });

  it('puts the row in the pending index when the takeover would have, and only then', async () => {
    const hidden = await staleRowAndTakeover(undefined, false);
    expect(hidden.fields.pendingShard).toBeUndefined();
    await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: hidden.row.key, fields: hidden.fields }, TRANSIENT, LATER + 50);
    expect((await current(hidden.row.key)).pendingShard).toBeUndefined();

    const row = claimRow('owner-1', T0, false);
    await db.ledger.claim(row, T0);
    const fields = takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined, discoverable: true });
    await db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50);
    expect((await current(row.key)).pendingShard).toBe(pendingShardOf(row.key));
  });

  it("refuses when another owner's takeover holds the row at our version", async () => {
    const { row, fields } = await staleRowAndTakeover();
    expect(await db.ledger.takeOver(row.key, { ...fields, ownerToken: 'owner-3' })).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50));
  });

  it('refuses once the row is settled, even at the version it expected', async () => {
    const { row, fields } = await staleRowAndTakeover();
    expect(await db.ledger.complete(row, { state: 'UNKNOWN', reason: 'gave up' }, LATER, row.expiresAt)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50));
  });

  it('refuses once the row moved past the takeover’s version', async () => {
    const { row, fields } = await staleRowAndTakeover();
    await db.ledger.takeOver(row.key, fields);
    await db.ledger.release({ key: row.key, ownerToken: 'owner-2', claimVersion: 2 }, TRANSIENT, LATER + 10);
    const next = takeoverFields({ row: await current(row.key), ownerToken: 'owner-3', nowMs: LATER + 20, timing: TIMING, lastAmbiguousAt: undefined });
    expect(await db.ledger.takeOver(row.key, next)).toBe(true);
    await refusedAndUnchanged(row.key, () => db.ledger.releaseUnconfirmed({ kind: 'takeover', key: row.key, fields }, TRANSIENT, LATER + 50));
  });
});

describe('a ledger request that fails for another reason than its condition', () => {
  const missing = () => new DynamoDbLedger(db.client, 'ledger-table-that-does-not-exist');

  it('is an error, never a refusal: the caller must not read it as "someone else holds the row"', async () => {
    const row = claimRow('owner-1');
    const fields = takeoverFields({ row, ownerToken: 'owner-2', nowMs: LATER, timing: TIMING, lastAmbiguousAt: undefined });
    await expect(missing().releaseUnconfirmed({ kind: 'claim', row }, TRANSIENT, T0)).rejects.toThrow();
    await expect(missing().takeOver(row.key, fields)).rejects.toThrow();
    await expect(missing().release(row, TRANSIENT, T0)).rejects.toThrow();
  });
});

describe('recordDeliveryStatus: the detail belongs to the status it came with', () => {
  it('a later status without a detail removes the earlier status’s detail', async () => {
    const row = claimRow('owner-1');
    await db.ledger.claim(row, T0);
    const at = T0 + 60_000;
    await db.ledger.recordDeliveryStatus(row.key, { status: 'DeliveryDelay', at, source: 'ses', detail: 'MailboxFull' }, at);
    expect(await db.ledger.recordDeliveryStatus(row.key, { status: 'Delivery', at: at + 1, source: 'ses' }, at + 1)).toBe('recorded');
    const recorded = await current(row.key);
    expect(recorded).toMatchObject({ deliveryStatus: 'Delivery' });
    expect(recorded.deliveryStatusDetail).toBeUndefined();
  });
});

describe('rows with optional fields left undefined', () => {
  it('are written without them, also inside the stored request (an e-mail without HTML)', async () => {
    const request = { channel: 'email' as const, to: 'buyer@example.com', subject: 'Hi', text: 'Hello', html: undefined };
    const row: LedgerRow = { ...claimRow('owner-1'), request, lastAmbiguousAt: undefined };
    expect(await db.ledger.claim(row, T0)).toEqual({ claimed: true });
    const stored = await current(row.key);
    expect(stored.request).toEqual({ channel: 'email', to: 'buyer@example.com', subject: 'Hi', text: 'Hello' });
    expect(stored.request && 'html' in stored.request).toBe(false);
    expect('lastAmbiguousAt' in stored).toBe(false);
  });
});
