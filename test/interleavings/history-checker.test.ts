import { describe, expect, it } from 'vitest';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { checkHistory, endsWithinItsBound } from './history-checker';
import type { AcceptedSend } from './scripted-provider';

const otp = buildMessageClassRegistry().get('otp')!;
const KEY = 'k'.repeat(40);
const row = { key: KEY, state: 'SENT', providerMessageId: 'email-msg-2', lastAmbiguousAt: 1, messageClass: 'otp' } as unknown as LedgerRow;
const send = (n: number, actor: string, previousSenderHeldClaim: boolean): AcceptedSend => ({
  key: KEY,
  providerMessageId: `email-msg-${n}`,
  channel: 'email',
  actor,
  answered: false,
  at: n,
  ledgerCountAtSend: 0,
  previousSenderHeldClaim,
});
const history = (sends: AcceptedSend[]) => ({
  messages: [{ key: KEY, messageClass: otp, channel: 'email' }],
  accepted: sends,
  rejectedKeys: new Set<string>(),
  rows: [row],
  wire: [],
});

describe('the history checker', () => {
  // The long run's first counterexample (seed 1422158421, path 230) was the checker's: the first
  // sender's release landed (a held copy) while it still retried it, and the takeover's resend was flagged.
  it('allows an otp resend after an ambiguity once the earlier sender handed the row back, though it still runs', () => {
    expect(checkHistory(history([send(1, 'w1', false), send(2, 'w0', false)]))).toEqual({ violations: [], permittedResends: 1 });
  });

  it('flags a resend while the earlier sender still held the claim', () => {
    expect(checkHistory(history([send(1, 'w1', false), send(2, 'w0', true)])).violations).toEqual([
      expect.objectContaining({ rule: 'no claim looks stale while its owner may still be sending' }),
    ]);
  });

  it("flags a row that lost a proof of a send the status Lambda processed (a later attempt's refusal replaced it)", () => {
    const refused = { ...row, state: 'PENDING', claimVersion: 2, lastRelease: 'ambiguous', deliveryStatus: 'TEXT_TTL_EXPIRED', deliveryStatusClaimVersion: 2 } as unknown as LedgerRow;
    const proven = { ...refused, sendProvenBy: 'TEXT_DELIVERED' } as LedgerRow;
    const rules = (r: LedgerRow) => checkHistory({ ...history([]), rows: [r], provenKeys: new Set([KEY]) }).violations.map((v) => v.rule);
    expect(rules(refused)).toContain('proof of a send is never lost');
    expect(rules(proven)).not.toContain('proof of a send is never lost');
  });

  it('flags a release fenced on an older claim, and one on another environment\'s claim, though each passed its fence', () => {
    const wire = (seq: number, actor: string, write: string, body: Record<string, unknown>) => ({ seq, actor, operation: 'UpdateItem', write, key: KEY, status: 200, body });
    const values = (owner: string, version: number) => ({ ExpressionAttributeValues: { ':owner': { S: owner }, ':version': { N: String(version) } } });
    const claimed = wire(1, 'w0.d0', 'claim', { Item: { ownerToken: { S: 'w0.d0-t1' }, claimVersion: { N: '1' } } });
    const takenOver = wire(2, 'w1.d1', 'takeover', values('w1.d1-t2', 2));
    const pending = { ...row, state: 'PENDING' } as unknown as LedgerRow;
    const rules = (records: ReturnType<typeof wire>[]) => checkHistory({ ...history([]), rows: [pending], wire: records }).violations.map((v) => v.rule);
    expect(rules([claimed, takenOver, wire(3, 'w0.d5', 'release', values('w0.d0-t1', 1))])).toContain('no write by a claim that no longer owns the row');
    expect(rules([claimed, takenOver, wire(3, 'w0.d5', 'release', values('w1.d1-t2', 2))])).toContain('a claim is released or settled only by its own execution environment');
    expect(rules([claimed, takenOver, wire(3, 'w1.recovery', 'release', values('w1.d1-t2', 2))])).not.toContain('a claim is released or settled only by its own execution environment');
  });

  describe('every row ends within its bound (review defect 3)', () => {
    const timing = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
    const at = (fields: Partial<LedgerRow>) => ({ key: KEY, createdAt: 0, expiresAt: timing.retentionMs / 1000, ...fields }) as LedgerRow;
    const rules = (r: LedgerRow) => endsWithinItsBound(r, otp, timing).map((v) => v.detail);

    it('flags a TTL moved past the first claim plus the retention (each takeover moved it out)', () => {
      expect(rules(at({ expiresAt: timing.retentionMs / 1000 + 60 }))).toEqual([expect.stringMatching(/^TTL .* past its first claim \+ retention/)]);
    });

    it('flags a row settled long after its class bound (otp: 30 minutes), and one ended at its bound before it', () => {
      expect(rules(at({ state: 'SENT', resolvedAt: 3_600_000 }))).toEqual([expect.stringMatching(/^settled 3600000 ms after its first claim/)]);
      expect(rules(at({ state: 'UNKNOWN', resolvedAt: 60_000, failureReason: 'SettleBoundReached: x' }))).toEqual([expect.stringMatching(/before the bound/)]);
      expect(rules(at({ state: 'UNKNOWN', resolvedAt: 1_800_000, failureReason: 'SettleBoundReached: x' }))).toEqual([]);
    });

    it('flags a FAILED at its bound though a provider accepted a send: "possibly delivered" is not "certainly not"', () => {
      const failed = { ...row, state: 'FAILED', failureReason: 'SettleBoundReached: x', createdAt: 0, resolvedAt: 1_800_000, expiresAt: 1 } as unknown as LedgerRow;
      expect(checkHistory({ ...history([send(1, 'w1', false)]), rows: [failed], timing }).violations.map((v) => v.rule)).toEqual(['three facts, never two']);
    });
  });
});
