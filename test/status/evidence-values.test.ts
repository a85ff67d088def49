import { describe, expect, it } from 'vitest';
import { evidenceFromRow, gatherEvidence } from '../../functions/core/provider/delivery-evidence';
import { deliveryStatusRank, isKnownDeliveryStatus } from '../../functions/core/provider/delivery-status';
import { statusFromSesEvent } from '../../functions/status/ses-event';
import type { RowEvidenceFields } from '../../functions/core/provider/delivery-evidence';
import { sesEvent } from './status-fixtures';

/** A row whose latest claim (version 2) was released ambiguous, with a status about that claim's e-mail. */
function row(fields: Partial<RowEvidenceFields> = {}): RowEvidenceFields {
  return { claimVersion: 2, lastRelease: 'ambiguous', deliveryStatusClaimVersion: 2, ...fields };
}

describe('what a recorded delivery status proves', () => {
  it.each(['Send', 'Delivery', 'DeliveryDelay', 'Bounce', 'Complaint', 'Open', 'Click', 'Subscription', 'SUCCESS', 'FAILURE'])(
    '%s: the provider acted on the call (sending again would be a second message)',
    (status) => expect(evidenceFromRow(row({ deliveryStatus: status }))).toBe('sent'),
  );

  it.each(['Reject', 'RenderingFailure'])('%s: the provider refused it without attempting delivery', (status) =>
    expect(evidenceFromRow(row({ deliveryStatus: status }))).toBe('not-sent'),
  );

  it('a refusal proves only its own attempt unsent: one of an earlier attempt, or of no known attempt, proves nothing', () => {
    // Claim 1's e-mail was refused, claim 2 timed out: claim 2 may have sent it.
    expect(evidenceFromRow(row({ deliveryStatus: 'Reject', deliveryStatusClaimVersion: 1 }))).toBe('none');
    expect(evidenceFromRow(row({ deliveryStatus: 'RenderingFailure', deliveryStatusClaimVersion: 1 }))).toBe('none');
    // Mail sent before the claim-version tag existed.
    expect(evidenceFromRow(row({ deliveryStatus: 'Reject', deliveryStatusClaimVersion: undefined }))).toBe('none');
    // A dead owner's claim: the row's own version is the attempt in question.
    expect(evidenceFromRow(row({ deliveryStatus: 'Reject', lastRelease: undefined }))).toBe('not-sent');
  });

  it('after a transient release the current claim never reached the provider: no refusal is trusted', () => {
    expect(evidenceFromRow(row({ deliveryStatus: 'Reject', lastRelease: 'transient' }))).toBe('none');
    expect(evidenceFromRow(row({ deliveryStatus: 'Reject', lastRelease: 'transient', deliveryStatusClaimVersion: 1 }))).toBe('none');
  });

  it('a status proving a send counts whichever attempt it is about: one sent message is enough', () => {
    expect(evidenceFromRow(row({ deliveryStatus: 'Delivery', deliveryStatusClaimVersion: 1 }))).toBe('sent');
    expect(evidenceFromRow(row({ deliveryStatus: 'Send', deliveryStatusClaimVersion: undefined, lastRelease: 'transient' }))).toBe('sent');
  });

  it('the claim-version tag is read as a positive whole number, anything else as no tag', () => {
    const key = 'b'.repeat(64);
    const mailAt = '2026-11-29T12:00:00.000Z';
    expect(statusFromSesEvent(sesEvent('Reject', { key, mailAt, claimVersion: 7 }))).toMatchObject({ update: { status: 'Reject', claimVersion: 7 } });
    for (const claimVersion of ['0', '07', '-1', '1.5', 'x', '', '12345678901234567']) {
      const event = statusFromSesEvent(sesEvent('Reject', { key, mailAt, claimVersion }));
      expect(event, claimVersion).toMatchObject({ update: { status: 'Reject' } });
      expect(event, claimVersion).not.toHaveProperty('update.claimVersion');
    }
  });

  it('SES spells the rendering failure "Rendering Failure" in eventType; it is recorded as RenderingFailure', () => {
    const key = 'b'.repeat(64);
    const event = statusFromSesEvent(sesEvent('Rendering Failure', { key, mailAt: '2026-11-29T12:00:00.000Z' }));
    expect(event).toMatchObject({ ref: { kind: 'key', key }, update: { status: 'RenderingFailure' } });
  });

  it('no status, or one we do not know, proves nothing', () => {
    expect(evidenceFromRow(row())).toBe('none');
    expect(evidenceFromRow(row({ deliveryStatus: 'Mystery' }))).toBe('none');
    expect(isKnownDeliveryStatus('Mystery')).toBe(false);
    expect(isKnownDeliveryStatus('toString')).toBe(false); // no prototype keys
  });

  it('at equal event time a later stage outranks an earlier one', () => {
    expect(deliveryStatusRank('Reject')).toBeGreaterThan(deliveryStatusRank('Send'));
    expect(deliveryStatusRank('Delivery')).toBeGreaterThan(deliveryStatusRank('DeliveryDelay'));
    expect(deliveryStatusRank('Complaint')).toBeGreaterThan(deliveryStatusRank('Delivery'));
  });
});

describe('where evidence comes from', () => {
  it('the row’s own status settles it: the provider is not asked', async () => {
    let asked = 0;
    const lookup = async () => {
      asked += 1;
      return 'none' as const;
    };
    expect(await gatherEvidence(row({ deliveryStatus: 'Delivery' }), lookup)).toBe('sent');
    expect(await gatherEvidence(row({ deliveryStatus: 'Reject' }), lookup)).toBe('not-sent');
    expect(asked).toBe(0);
  });

  it('without row evidence the provider is asked, and a failed look-up proves nothing', async () => {
    expect(await gatherEvidence(row(), async () => 'sent')).toBe('sent');
    expect(await gatherEvidence(undefined, async () => 'not-sent')).toBe('not-sent');
    expect(await gatherEvidence(row({ deliveryStatus: 'Mystery' }), async () => Promise.reject(new Error('lookup down')))).toBe('none');
    expect(await gatherEvidence(row(), undefined)).toBe('none');
  });
});
