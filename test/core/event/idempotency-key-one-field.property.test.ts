import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNELS, EVENT_PART_LENGTH, eventPartOf, idempotencyKey, keyPrefix, SHORT_KEY_LENGTH, type MessageIdentity } from '../../../functions/core/event/idempotency-key';

const text = fc.oneof(fc.string(), fc.constantFrom('', '"', '\\', '","', 'a"b', '\u0000', 'é'));
const identity = fc.record<MessageIdentity>({
  eventId: text,
  recipientId: text,
  channel: fc.constantFrom(...CHANNELS),
  templateId: text,
});

/** An identity and a copy that differs from it in exactly one field (every field equally often). */
function differingIn<F extends keyof MessageIdentity>(field: F, value: fc.Arbitrary<MessageIdentity[F]>) {
  return fc
    .tuple(identity, value)
    .filter(([id, other]) => id[field] !== other)
    .map(([id, other]) => [id, { ...id, [field]: other }] as const);
}

const ONE_FIELD_CHANGED = {
  eventId: differingIn('eventId', text),
  recipientId: differingIn('recipientId', text),
  channel: differingIn('channel', fc.constantFrom(...CHANNELS)),
  templateId: differingIn('templateId', text),
};

// A random pair of identities almost never differs in one field alone, so a key that ignored one
// field would pass "distinct for any difference"; these vary exactly one field and keep the rest.
describe('idempotency key: every identity field counts on its own', () => {
  it.each(Object.keys(ONE_FIELD_CHANGED) as (keyof MessageIdentity)[])('changing only %s changes the key', (field) => {
    fc.assert(
      fc.property(ONE_FIELD_CHANGED[field], ([a, b]) => {
        expect(idempotencyKey(b)).not.toBe(idempotencyKey(a));
      }),
      { numRuns: 300 },
    );
  });

  it('anything outside the four fields leaves the key unchanged (a transport id never enters it)', () => {
    fc.assert(
      fc.property(identity, fc.string(), (id, transportId) => {
        const withExtra = { ...id, messageId: transportId, sqsMessageId: transportId } as MessageIdentity;
        expect(idempotencyKey(withExtra)).toBe(idempotencyKey(id));
      }),
      { numRuns: 200 },
    );
  });

  it('logs show the key\'s first characters (the defect: "the 12-character key prefix" was characters 17-28), enough to tell the messages of one event apart, never all of it', () => {
    const key = idempotencyKey({ eventId: 'evt-1', recipientId: 'user-1', channel: 'email', templateId: 'welcome' });
    expect(key.startsWith(keyPrefix(key))).toBe(true);
    expect(keyPrefix(key)).toHaveLength(SHORT_KEY_LENGTH);
    // The event part and 8 characters of the message part: the messages of one event differ there.
    expect(SHORT_KEY_LENGTH).toBe(EVENT_PART_LENGTH + 8);
    const sibling = idempotencyKey({ eventId: 'evt-1', recipientId: 'user-2', channel: 'email', templateId: 'welcome' });
    expect(keyPrefix(sibling)).not.toBe(keyPrefix(key));
    expect(keyPrefix(sibling).slice(0, EVENT_PART_LENGTH)).toBe(keyPrefix(key).slice(0, EVENT_PART_LENGTH));
  });

  it('every key of one event starts with the same event part, which depends on the event id alone', () => {
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        const sameEvent = { ...b, eventId: a.eventId };
        expect(idempotencyKey(a).slice(0, EVENT_PART_LENGTH)).toBe(eventPartOf(a.eventId));
        expect(idempotencyKey(sameEvent).slice(0, EVENT_PART_LENGTH)).toBe(eventPartOf(a.eventId));
      }),
      { numRuns: 200 },
    );
  });

  it('changing only the event id changes the event part (apart from a 64-bit collision)', () => {
    fc.assert(
      fc.property(ONE_FIELD_CHANGED.eventId, ([a, b]) => {
        expect(eventPartOf(b.eventId)).not.toBe(eventPartOf(a.eventId));
      }),
      { numRuns: 300 },
    );
  });
});
