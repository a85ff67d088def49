import { describe, expect, it } from 'vitest';
import { consentKeyOf, consentSuppression, unsubscribeTopic, type ConsentRecord } from '../../../functions/core/policy/consent';

const record = (over: Partial<ConsentRecord> = {}): ConsentRecord => ({ all: false, topics: [], at: 1, source: 'ses-subscription', ...over });
const email = (to: string) => ({ channel: 'email' as const, to, subject: 's', text: 't' });
const sms = (to: string) => ({ channel: 'sms' as const, to, text: 't' });

describe('the consent key of a destination', () => {
  it('is 32 hex characters, never the address, and the same for every case of an e-mail address', () => {
    const key = consentKeyOf(email('Ann.Lee@Example.com'))!;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(consentKeyOf(email('ann.lee@example.com'))).toBe(key);
    expect(key).not.toContain('ann');
  });

  it('differs by channel and by address; push has none (no opt-out to honour)', () => {
    expect(consentKeyOf(sms('+14155550100'))).not.toBe(consentKeyOf(sms('+14155550101')));
    expect(consentKeyOf(email('a@example.com'))).not.toBe(consentKeyOf(sms('a@example.com')));
    expect(consentKeyOf({ channel: 'push', to: 'arn:aws:sns:us-east-1:1:endpoint/GCM/a/b', title: 't', text: 'x' })).toBeUndefined();
  });
});

describe('whether a bulk message may go to a recipient', () => {
  const topic = unsubscribeTopic('shop-', 'marketing');

  it('names the stack prefix and the class', () => {
    expect(topic).toBe('shop-marketing');
  });

  it('an e-mail contact unsubscribed from its topic, or from all, is Unsubscribed', () => {
    expect(consentSuppression('email', topic, record({ topics: ['shop-marketing'] }))?.reason).toBe('Unsubscribed');
    expect(consentSuppression('email', topic, record({ all: true }))).toEqual({
      reason: 'Unsubscribed',
      detail: 'Unsubscribed: the recipient unsubscribed from every topic (ses-subscription)',
    });
  });

  it('another topic, or no record, lets it go', () => {
    expect(consentSuppression('email', topic, record({ topics: ['shop-newsletter'] }))).toBeUndefined();
    expect(consentSuppression('email', topic, undefined)).toBeUndefined();
  });

  it('a number that opted out is OptedOut for every text; an e-mail topic opt-out says nothing about texts', () => {
    expect(consentSuppression('sms', topic, record({ all: true, source: 'sms-delivery-log' }))).toEqual({
      reason: 'OptedOut',
      detail: 'OptedOut: the number opted out of texts (sms-delivery-log)',
    });
    expect(consentSuppression('sms', topic, record({ topics: [topic] }))).toBeUndefined();
  });
});
