import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNELS, idempotencyKey, type MessageIdentity } from '../../../functions/core/event/idempotency-key';

// Adversarial strings: separators, quotes, escapes, unicode (incl. lone surrogates), empty.
const nasty = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '","', '\\"', '|', ':', '\u0000', 'a"b', '["x"]', '\ud800', 'é', 'é'),
  fc.string({ unit: fc.constantFrom('a', 'b', '"', ',', '\\', '|') }),
);
const identity = fc.record<MessageIdentity>({
  eventId: nasty,
  recipientId: nasty,
  channel: fc.constantFrom(...CHANNELS),
  templateId: nasty,
});

describe('idempotency key (property-based)', () => {
  it('is stable: equal inputs give the same 64-char lowercase hex key', () => {
    fc.assert(
      fc.property(identity, (id) => {
        const key = idempotencyKey(id);
        expect(key).toMatch(/^[0-9a-f]{64}$/);
        expect(idempotencyKey({ ...id })).toBe(key);
      }),
    );
  });

  it('is distinct for any difference in any of the four fields', () => {
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        const same = a.eventId === b.eventId && a.recipientId === b.recipientId && a.channel === b.channel && a.templateId === b.templateId;
        expect(idempotencyKey(a) === idempotencyKey(b)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });

  it('cannot be forged by moving characters between adjacent fields ("ab"+"c" vs "a"+"bc")', () => {
    fc.assert(
      fc.property(nasty, nasty, nasty, fc.nat(), (x, y, z, cut) => {
        const joined = x + y;
        const at = cut % (joined.length + 1);
        const shifted = { eventId: joined.slice(0, at), recipientId: joined.slice(at), channel: 'sms' as const, templateId: z };
        const original = { eventId: x, recipientId: y, channel: 'sms' as const, templateId: z };
        const same = shifted.eventId === x && shifted.recipientId === y;
        expect(idempotencyKey(shifted) === idempotencyKey(original)).toBe(same);
      }),
    );
  });

  // Computed outside the code: the first 16 hex of
  //   printf '%s' '["notifier-event-v2","evt-1"]' | sha256sum
  // then the first 48 hex of
  //   printf '%s' '["notifier-key-v2","evt-1","user-1","email","welcome"]' | sha256sum
  it('known vector (guards against an accidental change of the key material)', () => {
    expect(idempotencyKey({ eventId: 'evt-1', recipientId: 'user-1', channel: 'email', templateId: 'welcome' })).toBe(
      'a881c92ab6991d2c089898c45045aa141b380a438239d076e22b47ff2873affe',
    );
  });
});
