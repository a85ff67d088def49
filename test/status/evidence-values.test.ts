import { describe, expect, it } from 'vitest';
import { evidenceFromRow, gatherEvidence } from '../../functions/core/delivery-evidence';
import { deliveryStatusRank, isKnownDeliveryStatus } from '../../functions/core/delivery-status';
import { statusFromSesEvent } from '../../functions/status/ses-event';
import { sesEvent } from './status-fixtures';

describe('what a recorded delivery status proves', () => {
  it.each(['Send', 'Delivery', 'DeliveryDelay', 'Bounce', 'Complaint', 'Open', 'Click', 'Subscription', 'SUCCESS', 'FAILURE'])(
    '%s: the provider acted on the call (sending again would be a second message)',
    (status) => expect(evidenceFromRow({ deliveryStatus: status })).toBe('sent'),
  );

  it.each(['Reject', 'RenderingFailure'])('%s: the provider refused it without attempting delivery', (status) =>
    expect(evidenceFromRow({ deliveryStatus: status })).toBe('not-sent'),
  );

  it('SES spells the rendering failure "Rendering Failure" in eventType; it is recorded as RenderingFailure', () => {
    const key = 'b'.repeat(64);
    const event = statusFromSesEvent(sesEvent('Rendering Failure', { key, mailAt: '2026-11-29T12:00:00.000Z' }));
    expect(event).toMatchObject({ ref: { kind: 'key', key }, update: { status: 'RenderingFailure' } });
  });

  it('no status, or one we do not know, proves nothing', () => {
    expect(evidenceFromRow({})).toBe('none');
    expect(evidenceFromRow({ deliveryStatus: 'Mystery' })).toBe('none');
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
    expect(await gatherEvidence({ deliveryStatus: 'Delivery' }, lookup)).toBe('sent');
    expect(await gatherEvidence({ deliveryStatus: 'Reject' }, lookup)).toBe('not-sent');
    expect(asked).toBe(0);
  });

  it('without row evidence the provider is asked, and a failed look-up proves nothing', async () => {
    expect(await gatherEvidence({}, async () => 'sent')).toBe('sent');
    expect(await gatherEvidence(undefined, async () => 'not-sent')).toBe('not-sent');
    expect(await gatherEvidence({ deliveryStatus: 'Mystery' }, async () => Promise.reject(new Error('lookup down')))).toBe('none');
    expect(await gatherEvidence({}, undefined)).toBe('none');
  });
});
