import { describe, expect, it } from 'vitest';
import { evidenceFromRow } from '../../functions/core/delivery-evidence';
import { deliveryStatusRank, isKnownDeliveryStatus } from '../../functions/core/delivery-status';
import { statusFromSesEvent } from '../../functions/status/ses-event';
import { sesEvent } from './status-fixtures';

describe('what a recorded delivery status proves', () => {
  it.each(['Send', 'Delivery', 'DeliveryDelay', 'Bounce', 'Complaint', 'Open', 'Click', 'SUCCESS', 'FAILURE'])(
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
