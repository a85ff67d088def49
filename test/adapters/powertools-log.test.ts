import type { Logger } from '@aws-lambda-powertools/logger';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { maskAddressesIn, maskAttribute, powertoolsLog } from '../../functions/adapters/powertools-log';
import { addressFor } from '../../functions/core/event/recipient-address';

const acceptedPhone = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 14 }))
  .map(([first, rest]) => `+${first}${rest.join('')}`);

describe('log mask (powertoolsLog)', () => {
  it('masks every phone number the validator accepts, 7 to 15 digits', () => {
    fc.assert(
      fc.property(acceptedPhone, (phone) => {
        expect(addressFor({ recipientId: 'r', phone, channels: ['sms'] }, 'sms').ok).toBe(true);
        const masked = maskAddressesIn(`SNS refused ${phone}: opted out`);
        expect(masked).not.toContain(phone);
        expect(masked).not.toMatch(/\+\d{7}/);
      }),
      { numRuns: 300 },
    );
    expect(maskAddressesIn('to +1234567')).toBe('to +12***67');
  });

  it('masks e-mail addresses the validator accepts, keeping the domain', () => {
    for (const email of ['jane.doe+tag@example.co.uk', 'a@b.io', 'success@simulator.amazonses.com']) {
      expect(addressFor({ recipientId: 'r', email, channels: ['email'] }, 'email').ok).toBe(true);
      const masked = maskAddressesIn(`Email address is not verified. The following identities failed the check: ${email}`);
      expect(masked).not.toContain(email);
      expect(masked).toContain(`${email[0]}***@${email.split('@')[1]}`);
    }
  });

  it('leaves text without addresses, ids and already masked addresses alone', () => {
    for (const text of ['Sent', 'key 3f9a0c', 'j***@example.com', '+44*******89', 'eventId evt-1001', '2026-11-30T15:00:00Z']) {
      expect(maskAddressesIn(text)).toBe(text);
    }
  });

  it('masks nested attribute values and keeps numbers, booleans and keys', () => {
    expect(
      maskAttribute({ error: { name: 'MessageRejected', message: 'bad recipient x@shop.io' }, attempts: 2, ok: false, to: ['+447700900123'] }),
    ).toEqual({ error: { name: 'MessageRejected', message: 'bad recipient x***@shop.io' }, attempts: 2, ok: false, to: ['+44********23'] });
  });

  it('passes the masked message and attributes to Powertools at the same level', () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const log = powertoolsLog(logger as unknown as Logger);
    log.warn('Send failed for x@shop.io', { error: { message: 'to +447700900123' }, key: 'abc' });
    expect(logger.warn).toHaveBeenCalledWith('Send failed for x***@shop.io', { error: { message: 'to +44********23' }, key: 'abc' });
    log.info('Sent');
    expect(logger.info).toHaveBeenCalledWith('Sent', {});
  });
});
