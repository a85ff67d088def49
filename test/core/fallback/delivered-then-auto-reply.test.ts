import { describe, expect, it } from 'vitest';
import { fallbackDecision } from '../../../functions/core/fallback/fallback-decision';
import { primaryVerdict, type VerdictRow } from '../../../functions/core/fallback/primary-verdict';
import { newClaimRow } from '../../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';
import { outcomeEventDetail } from '../../../functions/core/outcome/outcome-event';
import { deliveryFactOf, outcomeChange, visibleOutcome } from '../../../functions/core/outcome/outcome-state';
import { deliveryStatusRank } from '../../../functions/core/provider/delivery-status';

/**
 * Defect (review, 2026-12-06): an `otp` e-mail that SES said was delivered (`Delivery`, T1) and whose recipient's
 * server then auto-replied (SES `Bounce` `Transient/General`, T2 > T1, which replaces `deliveryStatus`) read as only
 * "possibly delivered", so the class's window without evidence sent the code again as a text. The provider's proof of
 * delivery (`deliveryProvenBy`) stays on the row; only a certain later word (an asynchronous `Permanent` bounce on the
 * only attempt) still says the mail did not arrive.
 */
const t0 = Date.parse('2026-12-06T06:00:00Z');
const OTP = { enabled: true, withoutEvidenceSeconds: 120 } as const;
const AFTER_WINDOW = t0 + 3_600_000;
const claim = newClaimRow({
  subject: { key: 'd'.repeat(64), eventId: 'evt-auto-reply', recipientId: 'user-9', channel: 'email', templateId: 'login-code', messageClass: 'otp', occurredAt: '2026-12-06T05:59:00Z' },
  ownerToken: 'owner-1',
  nowMs: t0,
  timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
});
const sent: LedgerRow = { ...claim, state: 'SENT', providerMessageId: 'ses-1', resolvedAt: t0 + 100, updatedAt: t0 + 100 };
const bounced = (detail: string, fields: Partial<LedgerRow> = {}): LedgerRow => ({
  ...sent,
  deliveryStatus: 'Bounce',
  deliveryStatusDetail: detail,
  deliveryStatusAt: t0 + 60_000,
  deliveryStatusRank: deliveryStatusRank('Bounce'),
  ...fields,
});

describe('a delivered message later read as only possibly delivered (defect: an auto-reply bounce replaced the Delivery)', () => {
  it('Delivery proof, then a Transient/General bounce (an out-of-office reply): delivered, and no fallback after the window', () => {
    const row = bounced('Transient/General', { deliveryProvenBy: 'Delivery' });
    expect(primaryVerdict(row)).toEqual({ kind: 'delivered', status: 'Delivery' });
    expect(fallbackDecision(row, OTP, AFTER_WINDOW)).toEqual({ kind: 'none', why: 'delivered' });
  });

  // AWS says of an Undetermined bounce only that SES could not classify it: after a Delivery it may be the receiving
  // server's asynchronous bounce (review of 2026-12-06), so it lifts the proof and the window decides, as before.
  it.each(['Undetermined/Undetermined', 'Undetermined', 'Transient/SomeNewSubtype'])(
    'Delivery proof, then a %s bounce: possibly delivered, and the window still falls back',
    (detail) => {
      const row = bounced(detail, { deliveryProvenBy: 'Delivery' });
      expect(primaryVerdict(row)).toMatchObject({ kind: 'possibly-delivered' });
      expect(fallbackDecision(row, OTP, AFTER_WINDOW)).toMatchObject({ kind: 'fall-back', trigger: 'no-evidence' });
      expect(deliveryFactOf(row)).toBe('possibly-delivered');
    },
  );

  it('Delivery proof, then a Permanent bounce on the only attempt (an asynchronous bounce): certainly undelivered, falls back as before', () => {
    const row = bounced('Permanent/General', { deliveryProvenBy: 'Delivery' });
    expect(primaryVerdict(row)).toMatchObject({ kind: 'certainly-undelivered', cause: 'hard-failure' });
    expect(fallbackDecision(row, OTP, t0 + 61_000)).toMatchObject({ kind: 'fall-back', trigger: 'certainly-undelivered' });
  });

  it('Delivery proof, then a content bounce on the only attempt: still kept from fallback', () => {
    expect(primaryVerdict(bounced('Transient/ContentRejected', { deliveryProvenBy: 'Delivery' }))).toMatchObject({ kind: 'kept-from-fallback' });
  });

  it('Delivery proof, then a Permanent bounce after an attempt whose outcome is unknown: possibly delivered, never delivered nor certain', () => {
    const row = bounced('Permanent/General', { deliveryProvenBy: 'Delivery', lastAmbiguousAt: t0 + 50 });
    expect(primaryVerdict(row)).toMatchObject({ kind: 'possibly-delivered' });
  });

  it('no proof, a Transient/General bounce: possibly delivered, as before (the window still falls back)', () => {
    const row = bounced('Transient/General');
    expect(primaryVerdict(row)).toMatchObject({ kind: 'possibly-delivered' });
    expect(fallbackDecision(row, OTP, AFTER_WINDOW)).toMatchObject({ kind: 'fall-back', trigger: 'no-evidence' });
  });

  it('a proof of a send only (DeliveryDelay), then a Transient/General bounce: possibly delivered (a send is not a delivery)', () => {
    expect(primaryVerdict(bounced('Transient/General', { sendProvenBy: 'DeliveryDelay' }))).toMatchObject({ kind: 'possibly-delivered' });
  });

  it.each<readonly [LedgerRow['state'], Partial<LedgerRow>]>([
    ['FAILED', { failureReason: 'OptedOutException: Phone number is opted out', lastAmbiguousAt: t0 + 50 }],
    ['FAILED', { failureReason: 'TemplateNotFound: no template login-code' }],
    ['SUPPRESSED', { suppressionReason: 'Unsubscribed', lastAmbiguousAt: t0 + 50 }],
  ])('a %s row (a resend refused) whose earlier attempt was proven delivered: delivered', (state, fields) => {
    const row: VerdictRow = bounced('Transient/General', { state, deliveryProvenBy: 'Delivery', ...fields });
    expect(primaryVerdict(row)).toEqual({ kind: 'delivered', status: 'Delivery' });
  });
});

describe('the outcome feed reads the same proof (defect: it reported possibly-delivered for a delivered message)', () => {
  it('a Transient/General bounce after a proven Delivery is heard as delivered', () => {
    const row = bounced('Transient/General', { deliveryProvenBy: 'Delivery' });
    expect(deliveryFactOf(row)).toBe('delivered');
    expect(outcomeEventDetail(row, visibleOutcome(row)!)).toMatchObject({ state: 'BOUNCED', delivery: 'delivered' });
  });

  it('a Permanent bounce after a proven Delivery stays certainly undelivered', () => {
    expect(deliveryFactOf(bounced('Permanent/General', { deliveryProvenBy: 'Delivery' }))).toBe('certainly-undelivered');
  });

  it('Delivery then the auto-reply bounce: no new event (the delivery was heard, the bounce takes nothing back)', () => {
    const delivered: LedgerRow = { ...sent, deliveryStatus: 'Delivery', deliveryStatusAt: t0 + 1_000, deliveryStatusRank: 3, deliveryProvenBy: 'Delivery' };
    expect(outcomeChange(delivered, bounced('Transient/General', { deliveryProvenBy: 'Delivery' }))).toBeUndefined();
  });
});
