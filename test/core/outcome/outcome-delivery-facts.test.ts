import { describe, expect, it } from 'vitest';
import { primaryVerdict, type VerdictRow } from '../../../functions/core/fallback/primary-verdict';
import { newClaimRow } from '../../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';
import { outcomeEventDetail, outcomeIdOf, outcomeSequence } from '../../../functions/core/outcome/outcome-event';
import { outcomeChange, visibleOutcome } from '../../../functions/core/outcome/outcome-state';
import { STATUS_MEANINGS } from '../../../functions/core/provider/delivery-status-meaning';
import { deliveryStatusRank } from '../../../functions/core/provider/delivery-status';
import { expectOutcomeEventSchema } from '../../support/outcome-event-schema';

/**
 * What a producer hears of each provider status must tell the same one of the three facts ("certainly not
 * delivered", "possibly delivered", "delivered") that a fallback reads from the same STATUS_MEANINGS row.
 * Each `it` is named after the defect it would have caught.
 */
const t0 = Date.parse('2026-12-06T06:00:00Z');
const claim = newClaimRow({
  subject: { key: 'c'.repeat(64), eventId: 'evt-9', recipientId: 'buyer-9', channel: 'email', templateId: 'order-shipped', messageClass: 'transactional', occurredAt: '2026-12-06T05:59:00Z' },
  ownerToken: 'owner-1',
  nowMs: t0,
  timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
});
const sent: LedgerRow = { ...claim, state: 'SENT', providerMessageId: 'p-1', resolvedAt: t0 + 100, updatedAt: t0 + 100 };
const withStatus = (status: string, fields: Partial<LedgerRow> = {}): LedgerRow => ({
  ...sent,
  deliveryStatus: status,
  deliveryStatusAt: t0 + 2_000,
  deliveryStatusRank: deliveryStatusRank(status),
  ...fields,
});
const heard = (row: LedgerRow) => {
  const outcome = visibleOutcome(row);
  if (outcome === undefined) throw new Error('no outcome');
  const detail = outcomeEventDetail(row, outcome);
  expectOutcomeEventSchema([detail]);
  return detail;
};

describe('what a producer hears tells the fact the status proves', () => {
  // Defect (2026-12-06): SES Reject ("SES accepted the email, but determined that it contained a virus and didn't
  // attempt to deliver it") and RenderingFailure ("The email wasn't sent because of a template rendering issue")
  // ended a message certainly undelivered, yet the row stayed SENT for the producer, while End User Messaging's
  // TEXT_INVALID_MESSAGE and TEXT_PROTECT_BLOCKED in the same situation were BOUNCED.
  it.each(['Reject', 'RenderingFailure', 'TEXT_INVALID_MESSAGE', 'TEXT_PROTECT_BLOCKED'])(
    'a final refusal kept from fallback (%s) is BOUNCED and certainly undelivered to the producer',
    (status) => {
      expect(heard(withStatus(status))).toMatchObject({ state: 'BOUNCED', delivery: 'certainly-undelivered' });
    },
  );

  // Defect (2026-12-06): TEXT_SUCCESSFUL ("may be used interchangeably" with TEXT_DELIVERED) and SES Subscription
  // ("The email was successfully delivered, but the recipient updated their subscription preferences") stopped a
  // fallback as delivered, yet the producer never heard DELIVERED.
  it.each(['TEXT_SUCCESSFUL', 'Subscription', 'TEXT_DELIVERED', 'Delivery'])('%s is DELIVERED to the producer, as delivered', (status) => {
    expect(heard(withStatus(status))).toMatchObject({ state: 'DELIVERED', delivery: 'delivered' });
  });

  // Defect (2026-12-06): BOUNCED covered certain failures (a permanent Bounce, TEXT_BLOCKED) and uncertain ones (SNS
  // FAILURE, "Unknown error attempting to reach phone"; TEXT_CARRIER_UNREACHABLE, "a transient error"; a transient
  // Bounce) with nothing to tell them apart.
  it('a BOUNCED event says which fact it is: the uncertain ones possibly delivered, the certain ones certainly undelivered', () => {
    expect(heard(withStatus('Bounce', { deliveryStatusDetail: 'Permanent/General' }))).toMatchObject({ state: 'BOUNCED', delivery: 'certainly-undelivered' });
    expect(heard(withStatus('TEXT_BLOCKED'))).toMatchObject({ state: 'BOUNCED', delivery: 'certainly-undelivered' });
    expect(heard(withStatus('Bounce', { deliveryStatusDetail: 'Transient/General' }))).toMatchObject({ state: 'BOUNCED', delivery: 'possibly-delivered' });
    expect(heard(withStatus('Bounce', { deliveryStatusDetail: 'Transient/MailboxFull' }))).toMatchObject({ state: 'BOUNCED', delivery: 'certainly-undelivered' });
    expect(heard(withStatus('Bounce', { deliveryStatusDetail: 'Transient/ContentRejected' }))).toMatchObject({ state: 'BOUNCED', delivery: 'certainly-undelivered' });
    expect(heard(withStatus('FAILURE'))).toMatchObject({ state: 'BOUNCED', delivery: 'possibly-delivered' });
    expect(heard(withStatus('TEXT_CARRIER_UNREACHABLE'))).toMatchObject({ state: 'BOUNCED', delivery: 'possibly-delivered' });
  });

  // Defect (2026-12-06): TEXT_UNKNOWN ("Unknown errors can be temporary or permanent") was no outcome while SNS's
  // equally uncertain FAILURE was BOUNCED.
  it('a final TEXT_UNKNOWN is BOUNCED and possibly delivered, as SNS FAILURE is', () => {
    expect(heard(withStatus('TEXT_UNKNOWN'))).toMatchObject({ state: 'BOUNCED', delivery: 'possibly-delivered' });
    expect(visibleOutcome(withStatus('TEXT_UNKNOWN', { deliveryStatusIntermediate: true }))).toMatchObject({ state: 'SENT', source: 'ledger' });
  });

  it("every provider state's fact is the fallback's verdict on the same row, for every status, detail, state and earlier attempt", () => {
    const asFact = { delivered: 'delivered', 'certainly-undelivered': 'certainly-undelivered', 'kept-from-fallback': 'certainly-undelivered', 'possibly-delivered': 'possibly-delivered' } as const;
    let checked = 0;
    for (const status of Object.keys(STATUS_MEANINGS)) {
      for (const detail of [undefined, 'Permanent/General', 'Transient/General', 'Undetermined/Undetermined']) {
        for (const state of ['SENT', 'UNKNOWN'] as const) {
          for (const [lastAmbiguousAt, deliveryProvenBy] of [[undefined, undefined], [t0 + 50, undefined], [undefined, 'Delivery'], [t0 + 50, 'TEXT_DELIVERED']] as const) {
            const row = withStatus(status, {
              state,
              ...(detail ? { deliveryStatusDetail: detail } : {}),
              ...(lastAmbiguousAt ? { lastAmbiguousAt } : {}),
              // An earlier proof of delivery (defect: an auto-reply bounce after a Delivery read as possibly delivered).
              ...(deliveryProvenBy ? { deliveryProvenBy } : {}),
            });
            const outcome = visibleOutcome(row);
            if (outcome?.source !== 'provider') continue;
            const verdict = primaryVerdict(row as VerdictRow);
            if (verdict.kind === 'pending') throw new Error('a settled row');
            expect(heard(row).delivery, `${state} ${status} ${detail} ${lastAmbiguousAt} ${deliveryProvenBy}`).toBe(asFact[verdict.kind]);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('the ledger\'s own states carry no delivery fact (SENT, FAILED, SUPPRESSED, UNKNOWN say it themselves)', () => {
    expect(heard(sent).delivery).toBeUndefined();
    expect(heard({ ...sent, state: 'FAILED', failureReason: 'InvalidAddress: x' }).delivery).toBeUndefined();
  });

  // The field is derived from the same row as the state and the sequence, and is not part of the id: one state
  // change keeps the one id it had before the field existed, so a record replayed across the deploy is one event.
  it('the delivery fact does not enter the outcomeId: one state change keeps its id', () => {
    const row = withStatus('FAILURE');
    const detail = heard(row);
    expect(detail.outcomeId).toBe(outcomeIdOf(row.key, 'BOUNCED', outcomeSequence(row)));
    expect(detail.outcomeId).toBe('b045a99c88f25cae83145c16f218c2c6');
  });
});

describe('a later provider word that settles a possible delivery is heard', () => {
  const later = (row: LedgerRow, status: string, at: number, detail?: string): LedgerRow => ({
    ...row,
    deliveryStatus: status,
    deliveryStatusAt: at,
    deliveryStatusRank: deliveryStatusRank(status),
    ...(detail ? { deliveryStatusDetail: detail } : { deliveryStatusDetail: undefined }),
  });

  // Defect (2026-12-06): a BOUNCED the provider leaves open (a transient bounce) outranked DELIVERED, so an open, a
  // click or a delivery recorded after it was no event: the producer stayed at "bounced, possibly delivered" while
  // the fallback read the same row as delivered.
  it('a delivery, an open or a click after a possibly-delivered BOUNCED is DELIVERED', () => {
    const bounced = later(sent, 'Bounce', t0 + 2_000, 'Transient/General');
    expect(heard(bounced)).toMatchObject({ state: 'BOUNCED', delivery: 'possibly-delivered' });
    for (const status of ['Delivery', 'Open', 'Click']) {
      const after = later(bounced, status, t0 + 9_000);
      expect(heard(after), status).toMatchObject({ state: 'DELIVERED', delivery: 'delivered' });
      expect(outcomeChange(bounced, after), status).toMatchObject({ state: 'DELIVERED', source: 'provider' });
    }
  });

  // Same defect: a possibly-delivered BOUNCED then a certain one (a transient, then a permanent bounce) was no event,
  // so the producer never heard the failure became certain.
  it('a certain BOUNCED after a possibly-delivered one is a change; the reverse, and a possible failure after a delivery, are not', () => {
    const transient = later(sent, 'Bounce', t0 + 2_000, 'Transient/General');
    const permanent = later(transient, 'Bounce', t0 + 5_000, 'Permanent/General');
    expect(outcomeChange(transient, permanent)).toMatchObject({ state: 'BOUNCED' });
    expect(heard(permanent).outcomeId).not.toBe(heard(transient).outcomeId);
    expect(outcomeChange(permanent, later(permanent, 'Bounce', t0 + 6_000, 'Transient/General'))).toBeUndefined();
    const delivered = later(sent, 'Delivery', t0 + 2_000);
    expect(outcomeChange(delivered, later(delivered, 'Bounce', t0 + 6_000, 'Transient/General'))).toBeUndefined();
    // A certain failure after a delivery is still heard (a late permanent bounce), and a complaint after anything.
    expect(outcomeChange(delivered, later(delivered, 'Bounce', t0 + 6_000, 'Permanent/General'))).toMatchObject({ state: 'BOUNCED' });
    expect(outcomeChange(permanent, later(permanent, 'Complaint', t0 + 7_000))).toMatchObject({ state: 'COMPLAINED' });
  });
});
