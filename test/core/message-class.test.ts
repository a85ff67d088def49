import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../functions/core/errors';
import { buildMessageClassRegistry, resolveAmbiguity } from '../../functions/core/message-class';
import { scopeCounts, type LimitSubject } from '../../functions/core/message-limits';

const registry = buildMessageClassRegistry();
const cls = (name: string) => registry.get(name)!;

describe('message classes and the ambiguous window', () => {
  it('ships otp (resend), transactional (lookup, then resend) and marketing (give-up)', () => {
    expect(cls('otp').onAmbiguous).toBe('resend');
    expect(cls('transactional')).toMatchObject({ onAmbiguous: 'lookup', lookupFallback: 'resend' });
    expect(cls('marketing')).toMatchObject({ onAmbiguous: 'give-up', smsType: 'Promotional' });
  });

  it('without evidence, resend sends again and flags the possible duplicate; give-up gives up', () => {
    expect(resolveAmbiguity(cls('otp'), 'none', 0)).toEqual({ action: 'send', possibleDuplicate: true });
    expect(resolveAmbiguity(cls('marketing'), 'none', 0)).toEqual({ action: 'give-up' });
  });

  it('evidence, when there is some, decides for every class', () => {
    for (const name of ['otp', 'transactional', 'marketing']) {
      expect(resolveAmbiguity(cls(name), 'sent', 0)).toEqual({ action: 'mark-sent' });
      expect(resolveAmbiguity(cls(name), 'not-sent', 0)).toEqual({ action: 'send', possibleDuplicate: false });
    }
  });

  it('lookup follows the evidence, waits for it up to the bound, then falls back', () => {
    const transactional = cls('transactional');
    expect(resolveAmbiguity(transactional, 'sent', 0)).toEqual({ action: 'mark-sent' });
    expect(resolveAmbiguity(transactional, 'not-sent', 0)).toEqual({ action: 'send', possibleDuplicate: false });
    expect(resolveAmbiguity(transactional, 'none', 299_999)).toEqual({ action: 'wait' });
    expect(resolveAmbiguity(transactional, 'none', 300_000)).toEqual({ action: 'send', possibleDuplicate: true });
  });

  it('a deployment adds or overrides classes by name', () => {
    const custom = buildMessageClassRegistry(
      JSON.stringify([{ name: 'security-alert', onAmbiguous: 'resend' }, { name: 'marketing', onAmbiguous: 'lookup' }]),
    );
    expect(custom.get('security-alert')).toEqual({
      name: 'security-alert',
      onAmbiguous: 'resend',
      lookupFallback: 'give-up',
      evidenceWaitSeconds: 300,
      smsType: 'Transactional',
      limits: [],
      bulk: false,
      quietHours: undefined,
    });
    expect(custom.get('marketing')?.onAmbiguous).toBe('lookup');
    expect(custom.get('otp')?.onAmbiguous).toBe('resend');
  });

  it('a malformed class list fails with the offending entry named', () => {
    expect(() => buildMessageClassRegistry('[{"name":"x","onAmbiguous":"maybe"}]')).toThrow(ConfigurationError);
    expect(() => buildMessageClassRegistry('[{"name":"x","onAmbiguous":"maybe"}]')).toThrow(/0\.onAmbiguous/);
    expect(() => buildMessageClassRegistry('not json')).toThrow(/MESSAGE_CLASSES is not JSON/);
  });
});

describe('the built-in otp limits', () => {
  it('every otp limit counts across channels and templates: one person, one address or one number block, whatever code is sent', () => {
    for (const limit of cls('otp').limits) expect(limit, limit.scope).toMatchObject({ perChannel: false, perTemplate: false });
  });

  it('a pumping run cannot dodge the number-block limit by alternating templates: one counter per block', () => {
    const subject: LimitSubject = { eventId: 'e1', recipientId: 'user-1', channel: 'sms', templateId: 'login-code', address: '+14155550123' };
    const block = (over: Partial<LimitSubject>) =>
      scopeCounts('otp', cls('otp').limits, { ...subject, ...over }, 0).find((c) => c.scope === 'number-block')!.partition;
    expect(block({ templateId: 'signup-code', recipientId: 'user-2', address: '+14155550999' })).toBe(block({}));
  });
});
