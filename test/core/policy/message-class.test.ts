import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../functions/core/errors';
import { buildMessageClassRegistry, resolveAmbiguity } from '../../../functions/core/policy/message-class';
import { scopeCounts, type LimitSubject } from '../../../functions/core/policy/message-limits';
import { DEFAULT_PUSH_POLICY } from '../../../functions/core/templates/push-policy';

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
    expect(resolveAmbiguity(transactional, 'none', 300_000)).toEqual({ action: 'send', possibleDuplicate: true, afterWait: true });
  });

  it('says when a wait for evidence, not evidence, settled the message (the SettledByWait count), and only then', () => {
    const keyed = { keyedEvidence: true };
    expect(resolveAmbiguity(cls('transactional'), 'none', 300_000)).toMatchObject({ afterWait: true });
    expect(resolveAmbiguity(cls('otp'), 'none', 30_000, keyed)).toMatchObject({ afterWait: true });
    expect(resolveAmbiguity(cls('marketing'), 'none', 300_000, keyed)).toEqual({ action: 'give-up', afterWait: true });
    // No wait at all (otp without keyed evidence): its policy, not a wait, settled it.
    expect(resolveAmbiguity(cls('otp'), 'none', 0)).not.toHaveProperty('afterWait');
    expect(resolveAmbiguity(cls('transactional'), 'sent', 300_000)).toEqual({ action: 'mark-sent' });
  });

  it('where the provider\'s events carry the key, otp waits 30 s and marketing 300 s for them before the policy', () => {
    const keyed = { keyedEvidence: true };
    expect(resolveAmbiguity(cls('otp'), 'none', 29_999, keyed)).toEqual({ action: 'wait' });
    expect(resolveAmbiguity(cls('otp'), 'none', 30_000, keyed)).toEqual({ action: 'send', possibleDuplicate: true, afterWait: true });
    expect(resolveAmbiguity(cls('marketing'), 'none', 299_999, keyed)).toEqual({ action: 'wait' });
    expect(resolveAmbiguity(cls('marketing'), 'none', 300_000, keyed)).toEqual({ action: 'give-up', afterWait: true });
    // Evidence arriving inside the window settles at once; transactional keeps its own (longer) lookup wait.
    expect(resolveAmbiguity(cls('otp'), 'sent', 0, keyed)).toEqual({ action: 'mark-sent' });
    expect(resolveAmbiguity(cls('transactional'), 'none', 299_999, keyed)).toEqual({ action: 'wait' });
    // Without keyed evidence (SNS SMS) nothing waits: the policy applies at once, as before.
    expect(resolveAmbiguity(cls('otp'), 'none', 0, { keyedEvidence: false })).toEqual({ action: 'send', possibleDuplicate: true });
    // A class given without a window (an override) applies its policy at once.
    const otpOverride = buildMessageClassRegistry('[{"name":"otp","onAmbiguous":"resend"}]').get('otp')!;
    expect(resolveAmbiguity(otpOverride, 'none', 0, keyed)).toEqual({ action: 'send', possibleDuplicate: true });
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
      push: { lifetimeSeconds: 259_200, priority: 'high' },
      bulk: false,
      quietHours: undefined,
      fallback: { enabled: true },
    });
    expect(custom.get('marketing')?.onAmbiguous).toBe('lookup');
    expect(custom.get('otp')?.onAmbiguous).toBe('resend');
  });

  it('otp falls back without evidence after 120 s, transactional only when certain, marketing never (built-in fallback settings)', () => {
    const builtIn = buildMessageClassRegistry();
    expect(builtIn.get('otp')?.fallback).toEqual({ enabled: true, withoutEvidenceSeconds: 120 });
    expect(builtIn.get('transactional')?.fallback).toEqual({ enabled: true });
    expect(builtIn.get('marketing')?.fallback).toEqual({ enabled: false });
  });

  it('an override keeps the built-in fallback setting unless it gives its own', () => {
    const custom = buildMessageClassRegistry(JSON.stringify([{ name: 'otp', onAmbiguous: 'resend' }, { name: 'marketing', onAmbiguous: 'give-up', fallback: { enabled: true } }]));
    expect(custom.get('otp')?.fallback).toEqual({ enabled: true, withoutEvidenceSeconds: 120 });
    expect(custom.get('marketing')?.fallback).toEqual({ enabled: true });
  });

  it('fails if a fallback window is longer than SQS DelaySeconds allows (900 s) or not a whole positive number', () => {
    for (const seconds of [901, 0, 1.5, -1]) {
      expect(() => buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'resend', fallback: { withoutEvidenceSeconds: seconds } }]))).toThrow(
        /fallback\.withoutEvidenceSeconds/,
      );
    }
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

describe('push settings per class', () => {
  it('ship a lifetime and a priority for each built-in class: a code lives as long as the event says, else 10 minutes, at priority 10', () => {
    expect(cls('otp').push).toEqual({ lifetimeSeconds: 600, priority: 'high', validityMinutesField: 'expiresInMinutes' });
    expect(cls('transactional').push).toEqual({ lifetimeSeconds: 259_200, priority: 'high' });
    expect(cls('marketing').push).toEqual({ lifetimeSeconds: 86_400, priority: 'normal' });
  });

  it("an override that leaves push out keeps the built-in class's push; one that gives it replaces it whole, with defaults", () => {
    const custom = buildMessageClassRegistry(
      JSON.stringify([
        { name: 'otp', onAmbiguous: 'give-up' },
        { name: 'marketing', onAmbiguous: 'give-up', push: { lifetimeSeconds: 3600 } },
      ]),
    );
    expect(custom.get('otp')?.push).toEqual(cls('otp').push);
    expect(custom.get('marketing')?.push).toEqual({ lifetimeSeconds: 3600, priority: 'high' });
    expect(buildMessageClassRegistry('[{"name":"x","onAmbiguous":"resend","push":{}}]').get('x')?.push).toEqual(DEFAULT_PUSH_POLICY);
  });

  it.each([
    ['a lifetime past the 28 days FCM keeps a message', { lifetimeSeconds: 28 * 86_400 + 1 }, /0\.push\.lifetimeSeconds/],
    ['a negative lifetime', { lifetimeSeconds: -1 }, /0\.push\.lifetimeSeconds/],
    ['a priority the platforms do not have', { priority: 'urgent' }, /0\.push\.priority/],
    ['a key that is not a push setting (a typo)', { lifetimeSecs: 60 }, /0\.push/],
    ['a validity field that is no data field name', { validityMinutesField: 'expires in' }, /0\.push\.validityMinutesField/],
  ])('refuses %s, naming the entry', (_what, push, where) => {
    expect(() => buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'resend', push }]))).toThrow(where);
  });
});
