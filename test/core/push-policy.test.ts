import { describe, expect, it } from 'vitest';
import { MAX_PUSH_LIFETIME_SECONDS, pushLifetimeSeconds, validForSeconds, type PushPolicy } from '../../functions/core/push-policy';

const minutes: PushPolicy = { lifetimeSeconds: 600, priority: 'high', validityFromData: { field: 'expiresInMinutes', unit: 'minutes' } };
const seconds: PushPolicy = { lifetimeSeconds: 600, priority: 'high', validityFromData: { field: 'ttl', unit: 'seconds' } };

describe("a push's validity from the event's data", () => {
  it.each([
    ['a number of minutes', minutes, { expiresInMinutes: 5 }, 300],
    ['a string of digits', minutes, { expiresInMinutes: '15' }, 900],
    ['a fraction of a minute, to the second below', minutes, { expiresInMinutes: 0.51 }, 30],
    ['zero: the code is already spent, deliver now or never', minutes, { expiresInMinutes: 0 }, 0],
    ['seconds as they are', seconds, { ttl: 45 }, 45],
    ['no longer than FCM keeps a message', minutes, { expiresInMinutes: 100_000 }, MAX_PUSH_LIFETIME_SECONDS],
  ])('%s', (_what, policy, data, expected) => {
    expect(validForSeconds(policy, data)).toBe(expected);
  });

  it.each([
    ['the field is missing', { code: '1' }],
    ['a negative number', { expiresInMinutes: -5 }],
    ['not a number', { expiresInMinutes: 'ten' }],
    ['digits with a sign or a point as text', { expiresInMinutes: '-5' }],
    ['a boolean', { expiresInMinutes: true }],
    ['null', { expiresInMinutes: null }],
    ['NaN-like infinity', { expiresInMinutes: Number.POSITIVE_INFINITY }],
  ])('is unknown when %s (the class lifetime applies)', (_what, data) => {
    expect(validForSeconds(minutes, data)).toBeUndefined();
    expect(pushLifetimeSeconds(minutes, validForSeconds(minutes, data))).toBe(600);
  });

  it('is unknown for a class that names no field, whatever the data says', () => {
    expect(validForSeconds({ lifetimeSeconds: 600, priority: 'high' }, { expiresInMinutes: 5 })).toBeUndefined();
  });

  it("outranks the class lifetime when known, also when longer: it is the content's own", () => {
    expect(pushLifetimeSeconds(minutes, 300)).toBe(300);
    expect(pushLifetimeSeconds(minutes, 1200)).toBe(1200);
    expect(pushLifetimeSeconds(minutes, 0)).toBe(0);
  });
});
