import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { useTestLedger } from '../support/ledger-server';

const db = useTestLedger();

function pendingRow(eventId: string): LedgerRow {
  const key = idempotencyKey({ eventId, recipientId: 'r', channel: 'sms', templateId: 'login-code' });
  return {
    key,
    state: 'PENDING',
    claimVersion: 1,
    ownerToken: 'owner-1',
    claimedAt: 1_000,
    leaseExpiresAt: 121_000,
    attempts: 1,
    eventId,
    recipientId: 'r',
    channel: 'sms',
    templateId: 'login-code',
    messageClass: 'otp',
    occurredAt: '2026-11-29T11:59:30.000Z',
    createdAt: 1_000,
    updatedAt: 1_000,
    expiresAt: 9_999_999_999,
  };
}

describe('the ambiguity streak on the ledger row (real ledger on dynalite)', () => {
  it('an ambiguous release writes the streak; a later release that leaves it keeps it; a reset removes it', async () => {
    const row = pendingRow('evt-streak');
    const claim = { key: row.key, ownerToken: row.ownerToken, claimVersion: row.claimVersion };
    expect(await db.ledger.claim(row, 1_000)).toEqual({ claimed: true });

    const streak = { unanswered: 'ECONNRESET', calls: 2 };
    expect(await db.ledger.release(claim, { reason: 'ambiguous', detail: 'socket hang up', lastAmbiguousAt: 2_000, ambiguityStreak: streak }, 2_000)).toBe(true);
    expect((await db.ledger.get(row.key))?.ambiguityStreak).toEqual(streak);

    // A refusal (certainly not sent) neither adds to the streak nor ends it.
    expect(await db.ledger.release(claim, { reason: 'transient', detail: 'Throttled', lastAmbiguousAt: 2_000 }, 3_000)).toBe(true);
    expect(await db.ledger.get(row.key)).toMatchObject({ lastRelease: 'transient', ambiguityStreak: streak });

    expect(await db.ledger.release(claim, { reason: 'ambiguous', detail: 'InternalError', lastAmbiguousAt: 4_000, ambiguityStreak: 'reset' }, 4_000)).toBe(true);
    const reset = await db.ledger.get(row.key);
    expect(reset).toMatchObject({ lastRelease: 'ambiguous', failureReason: 'InternalError', lastAmbiguousAt: 4_000 });
    expect(reset).not.toHaveProperty('ambiguityStreak');
  });
});
