import { describe, expect, it } from 'vitest';
import { newClaimRow } from '../../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';
import { outcomeEventDetail, outcomeSequence } from '../../../functions/core/outcome/outcome-event';
import { outcomeChange, visibleOutcome } from '../../../functions/core/outcome/outcome-state';

const timing = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
const t0 = Date.parse('2026-11-29T12:00:00Z');
const claim = newClaimRow({
  subject: { key: 'a'.repeat(64), eventId: 'evt-1', recipientId: 'buyer-17', channel: 'email', templateId: 'order-shipped', messageClass: 'transactional', occurredAt: '2026-11-29T11:59:00Z' },
  ownerToken: 'owner-1',
  nowMs: t0,
  timing,
});
const row = (patch: Partial<LedgerRow>): LedgerRow => ({ ...claim, ...patch });
const sent = row({ state: 'SENT', providerMessageId: 'ses-1', resolvedAt: t0 + 100, updatedAt: t0 + 100 });
const status = (base: LedgerRow, deliveryStatus: string, at: number, rank: number, detail?: string): LedgerRow => ({
  ...base,
  deliveryStatus,
  deliveryStatusAt: at,
  deliveryStatusRank: rank,
  ...(detail ? { deliveryStatusDetail: detail } : {}),
});

describe('which writes are outcomes a producer hears of', () => {
  it('a claim, a takeover and a release are not', () => {
    expect(outcomeChange(undefined, claim)).toBeUndefined();
    expect(outcomeChange(claim, row({ claimVersion: 2, ownerToken: 'owner-2' }))).toBeUndefined();
    expect(outcomeChange(claim, row({ lastRelease: 'transient', leaseExpiresAt: t0 + 5 }))).toBeUndefined();
  });

  it.each(['SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED'] as const)('PENDING to %s is', (state) => {
    expect(outcomeChange(claim, row({ state, resolvedAt: t0 + 100, updatedAt: t0 + 100 }))).toMatchObject({ state, source: 'ledger', stateAtMs: t0 + 100 });
  });

  it('a row removed (TTL) is not, and a row that is not yet settled is not', () => {
    expect(outcomeChange(sent, undefined)).toBeUndefined();
    expect(visibleOutcome(claim)).toBeUndefined();
  });

  it('SENT, then DELIVERED, then a late bounce, then a complaint: each is one change', () => {
    const delivered = status(sent, 'Delivery', t0 + 2_000, 3);
    const bounced = status(delivered, 'Bounce', t0 + 60_000, 4, 'Permanent/General');
    const complained = status(bounced, 'Complaint', t0 + 90_000, 5);
    expect(outcomeChange(sent, delivered)).toMatchObject({ state: 'DELIVERED', source: 'provider', stateAtMs: t0 + 2_000 });
    expect(outcomeChange(delivered, bounced)).toMatchObject({ state: 'BOUNCED' });
    expect(outcomeChange(bounced, complained)).toMatchObject({ state: 'COMPLAINED' });
  });

  // Defect found by an AWS-docs review (2026-12-06): a final End User Messaging block by the account's protect
  // configuration or a refused body on a text it had accepted was no outcome, so the producer never heard of it.
  it.each(['TEXT_PROTECT_BLOCKED', 'TEXT_INVALID_MESSAGE'])('a final %s on a SENT text is BOUNCED; an intermediate one is not yet', (type) => {
    const text = row({ ...sent, channel: 'sms' });
    expect(outcomeChange(text, status(text, type, t0 + 2_000, 4))).toMatchObject({ state: 'BOUNCED', source: 'provider' });
    expect(outcomeChange(text, { ...status(text, type, t0 + 2_000, 4), deliveryStatusIntermediate: true })).toBeUndefined();
  });

  it('a status that says nothing new is not a change: Send, a repeat delivery, an open after a delivery', () => {
    const withSend = status(sent, 'Send', t0 + 50, 1);
    expect(outcomeChange(sent, withSend)).toBeUndefined();
    const delivered = status(withSend, 'Delivery', t0 + 2_000, 3);
    expect(outcomeChange(delivered, status(delivered, 'Open', t0 + 9_000, 6))).toBeUndefined();
  });

  it('a weaker status after a stronger one takes nothing back (an open after a complaint, a delay after a delivery)', () => {
    const complained = status(sent, 'Complaint', t0 + 9_000, 5);
    expect(outcomeChange(complained, status(complained, 'Open', t0 + 10_000, 6))).toBeUndefined();
    const delivered = status(sent, 'Delivery', t0 + 2_000, 3);
    expect(outcomeChange(delivered, status(delivered, 'DeliveryDelay', t0 + 3_000, 2))).toBeUndefined();
  });

  it('an UNKNOWN message the provider then delivers is DELIVERED', () => {
    const unknown = row({ state: 'UNKNOWN', failureReason: 'SendTimeout: AbortError', resolvedAt: t0 + 100, updatedAt: t0 + 100 });
    expect(outcomeChange(unknown, status(unknown, 'Delivery', t0 + 2_000, 3))).toMatchObject({ state: 'DELIVERED' });
  });

  it('FAILED and SUPPRESSED stay what the ledger says whatever status comes', () => {
    const failed = row({ state: 'FAILED', failureReason: 'InvalidAddress: x', resolvedAt: t0 + 1, updatedAt: t0 + 1 });
    expect(outcomeChange(failed, status(failed, 'Delivery', t0 + 5, 3))).toBeUndefined();
    expect(visibleOutcome(status(failed, 'Delivery', t0 + 5, 3))).toMatchObject({ state: 'FAILED' });
  });

  it('SENT then SUPPRESSED by the provider\'s later word (an unsubscribed contact) is a change', () => {
    const suppressed = row({ ...sent, state: 'SUPPRESSED', suppressionReason: 'Unsubscribed', failureReason: 'Unsubscribed: the provider refused', updatedAt: t0 + 5_000 });
    expect(outcomeChange(sent, suppressed)).toMatchObject({ state: 'SUPPRESSED', stateAtMs: t0 + 5_000 });
  });

  it('a row re-claimed after its retention and settled again is a new life: a change even to the same state', () => {
    const later = t0 + 31 * 86_400_000;
    const reborn = { ...sent, createdAt: later, resolvedAt: later + 10, updatedAt: later + 10 };
    expect(outcomeChange(sent, reborn)).toMatchObject({ state: 'SENT' });
  });

  it('evidence recorded while PENDING makes the settled state the provider\'s', () => {
    const evidenced = status(claim, 'Delivery', t0 + 50, 3);
    expect(outcomeChange(claim, evidenced)).toBeUndefined();
    expect(outcomeChange(evidenced, { ...evidenced, state: 'SENT', resolvedAt: t0 + 200, updatedAt: t0 + 200 })).toMatchObject({ state: 'DELIVERED' });
  });
});

describe('the order of one key\'s events', () => {
  it('every later change of a row has a greater sequence, whatever the writers\' clocks say', () => {
    // The provider's clock is behind the sender's: its delivery is stamped before the row's own SENT.
    const delivered = status(sent, 'Delivery', t0 + 50, 3);
    const bounced = status(delivered, 'Bounce', t0 + 60, 4);
    const suppressed = { ...bounced, state: 'SUPPRESSED' as const, suppressionReason: 'Unsubscribed' as const, updatedAt: t0 + 70 };
    const reborn = { ...sent, createdAt: t0 + 31 * 86_400_000 };
    const sequences = [sent, delivered, bounced, suppressed, reborn].map(outcomeSequence);
    expect([...sequences].sort()).toEqual(sequences);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences.every((s) => /^\d{33}$/.test(s))).toBe(true);
  });

  it('the outcome id is the same for one state change, read twice, and differs for each other change', () => {
    const delivered = status(sent, 'Delivery', t0 + 2_000, 3);
    const once = outcomeEventDetail(delivered, visibleOutcome(delivered)!);
    const again = outcomeEventDetail(structuredClone(delivered), visibleOutcome(delivered)!);
    expect(again.outcomeId).toBe(once.outcomeId);
    const first = outcomeEventDetail(sent, visibleOutcome(sent)!);
    expect(first.outcomeId).not.toBe(once.outcomeId);
    const otherKey = outcomeEventDetail({ ...delivered, key: 'b'.repeat(64) }, visibleOutcome(delivered)!);
    expect(otherKey.outcomeId).not.toBe(once.outcomeId);
  });
});

describe('the event detail', () => {
  it('names the message, its state, its reason and its times', () => {
    const bounced = status(sent, 'Bounce', t0 + 60_000, 4, 'Permanent/General');
    expect(outcomeEventDetail(bounced, visibleOutcome(bounced)!, { laneOf: () => 'urgent' })).toEqual({
      version: 1,
      outcomeId: expect.stringMatching(/^[0-9a-f]{32}$/),
      sequence: outcomeSequence(bounced),
      key: 'a'.repeat(64),
      eventId: 'evt-1',
      recipientId: 'buyer-17',
      channel: 'email',
      templateId: 'order-shipped',
      messageClass: 'transactional',
      lane: 'urgent',
      state: 'BOUNCED',
      delivery: 'certainly-undelivered',
      reason: 'Bounce: Permanent/General',
      providerMessageId: 'ses-1',
      claimVersion: 1,
      occurredAt: '2026-11-29T11:59:00Z',
      stateAt: new Date(t0 + 60_000).toISOString(),
    });
  });

  it('a SUPPRESSED message says its rule first; a FAILED one its error; a SENT one no reason', () => {
    const suppressed = row({ state: 'SUPPRESSED', suppressionReason: 'Unsubscribed', failureReason: 'Unsubscribed: the recipient unsubscribed from every topic (ses)', resolvedAt: t0, updatedAt: t0 });
    expect(outcomeEventDetail(suppressed, visibleOutcome(suppressed)!).reason).toMatch(/^Unsubscribed: /);
    const failed = row({ state: 'FAILED', failureReason: 'MessageRejected: to buyer@example.com +447700900123', resolvedAt: t0, updatedAt: t0 });
    expect(outcomeEventDetail(failed, visibleOutcome(failed)!).reason).toBe('MessageRejected: to <email> <number>');
    const quoted = row({ state: 'FAILED', failureReason: "MessageRejected: 'o'brien'@example.com refused", resolvedAt: t0, updatedAt: t0 });
    expect(outcomeEventDetail(quoted, visibleOutcome(quoted)!).reason).not.toContain('@example.com');
    const released = { ...sent, failureReason: 'QuietHours: deferred' };
    expect(outcomeEventDetail(released, visibleOutcome(released)!).reason).toBeUndefined();
  });
});
