import { describe, expect, it } from 'vitest';
import { pushAttributes } from '../../../functions/core/templates/push-payload';
import { MAX_PUSH_LIFETIME_SECONDS, validForSeconds, type PushPolicy } from '../../../functions/core/templates/push-policy';

const minutes: PushPolicy = { lifetimeSeconds: 600, priority: 'high', validityMinutesField: 'expiresInMinutes' };
/** The lifetime a push of class `minutes` is sent with, as the FCM TTL attribute holds it. */
const ttlOf = (validFor: number | undefined) => pushAttributes('k', minutes, validFor)['AWS.SNS.MOBILE.FCM.TTL']?.StringValue;

describe("a push's validity from the event's data", () => {
  it.each([
    ['a number of minutes', minutes, { expiresInMinutes: 5 }, 300],
    ['a fraction of a minute, to the second below', minutes, { expiresInMinutes: 0.51 }, 30],
    ['zero: the code is already spent, deliver now or never', minutes, { expiresInMinutes: 0 }, 0],
    ['another field, when the class names it', { ...minutes, validityMinutesField: 'ttl' }, { ttl: 2, expiresInMinutes: 5 }, 120],
    ['no longer than FCM keeps a message', minutes, { expiresInMinutes: 100_000 }, MAX_PUSH_LIFETIME_SECONDS],
  ])('%s', (_what, policy, data, expected) => {
    expect(validForSeconds(policy, data)).toBe(expected);
  });

  it.each([
    ['the field is missing', { code: '1' }],
    ['a negative number', { expiresInMinutes: -5 }],
    ['not a number', { expiresInMinutes: 'ten' }],
    ['a number as text (event data keeps JSON types)', { expiresInMinutes: '15' }],
    ['a boolean', { expiresInMinutes: true }],
    ['null', { expiresInMinutes: null }],
    ['NaN', { expiresInMinutes: Number.NaN }],
  ])('is unknown when %s (the class lifetime applies)', (_what, data) => {
    expect(validForSeconds(minutes, data)).toBeUndefined();
    expect(ttlOf(validForSeconds(minutes, data))).toBe('600');
  });

  it('is unknown for a class that names no field, whatever the data says', () => {
    expect(validForSeconds({ lifetimeSeconds: 600, priority: 'high' }, { expiresInMinutes: 5 })).toBeUndefined();
  });

  it("outranks the class lifetime when known, also when longer: it is the content's own", () => {
    expect(ttlOf(300)).toBe('300');
    expect(ttlOf(1200)).toBe('1200');
    expect(ttlOf(0)).toBe('0');
  });
});
