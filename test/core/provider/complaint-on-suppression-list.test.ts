import { describe, expect, it } from 'vitest';
import { primaryVerdict } from '../../../functions/core/fallback/primary-verdict';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';
import { deliveryFactOf } from '../../../functions/core/outcome/outcome-state';
import { COMPLAINT_ON_SUPPRESSION_LIST, eventProvesDelivery, statusForFallback } from '../../../functions/core/provider/delivery-status-meaning';
import { statusFromSesEvent } from '../../../functions/status/ses-event';
import { sesEvent } from '../../status/status-fixtures';

/**
 * Defect (review, 2026-12-06): SES raises a `Complaint` itself, with `complaintSubType` `OnAccountSuppressionList`,
 * for an address on the account's suppression list: "SES accepted the message, but didn't attempt to send it because
 * it was on the account-level suppression list" (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_Complaint.html).
 * Every Complaint was read as proof that the mail reached the recipient, so such a mail was kept as delivered for
 * good and never fell back.
 */
const KEY = 'c'.repeat(64);
const MAIL_AT = '2026-12-06T06:00:00.000Z';
const suppressedComplaint = () => {
  const event = sesEvent('Complaint', { key: KEY, mailAt: MAIL_AT, claimVersion: 1 });
  return { ...event, complaint: { timestamp: MAIL_AT, complaintSubType: COMPLAINT_ON_SUPPRESSION_LIST, complainedRecipients: [] } };
};

const row = (fields: Partial<LedgerRow>): LedgerRow =>
  ({ key: KEY, state: 'SENT', messageClass: 'otp', createdAt: 1, updatedAt: 2, resolvedAt: 2, deliveryStatus: 'Complaint', deliveryStatusAt: 3, ...fields }) as LedgerRow;

describe("an SES complaint for an address on the account's suppression list (defect: read as delivered)", () => {
  it('the status Lambda records the subtype as the complaint\'s detail; a recipient\'s complaint keeps its feedback type', () => {
    expect(statusFromSesEvent(suppressedComplaint())).toMatchObject({ update: { status: 'Complaint', detail: COMPLAINT_ON_SUPPRESSION_LIST } });
    expect(statusFromSesEvent(sesEvent('Complaint', { key: KEY, mailAt: MAIL_AT, claimVersion: 1 }))).toMatchObject({ update: { status: 'Complaint', detail: 'abuse' } });
    const nullSubtype = { ...sesEvent('Complaint', { key: KEY, mailAt: MAIL_AT }), complaint: { timestamp: MAIL_AT, complaintSubType: null, complaintFeedbackType: 'abuse' } };
    expect(statusFromSesEvent(nullSubtype)).toMatchObject({ update: { status: 'Complaint', detail: 'abuse' } });
  });

  it('proves no delivery, and reads as a certain failure: the fallback goes on, the producer hears certainly undelivered', () => {
    expect(eventProvesDelivery('Complaint', { detail: COMPLAINT_ON_SUPPRESSION_LIST })).toBe(false);
    expect(statusForFallback('Complaint', COMPLAINT_ON_SUPPRESSION_LIST)).toBe('hard-failure');
    expect(primaryVerdict(row({ deliveryStatusDetail: COMPLAINT_ON_SUPPRESSION_LIST }))).toMatchObject({ kind: 'certainly-undelivered', cause: 'hard-failure' });
    expect(deliveryFactOf(row({ deliveryStatusDetail: COMPLAINT_ON_SUPPRESSION_LIST }))).toBe('certainly-undelivered');
  });

  it("a recipient's complaint (no subtype) still proves the mail reached them", () => {
    expect(eventProvesDelivery('Complaint', { detail: 'abuse' })).toBe(true);
    expect(primaryVerdict(row({ deliveryStatusDetail: 'abuse' }))).toEqual({ kind: 'delivered', status: 'Complaint' });
  });
});
