import { describe, expect, it } from 'vitest';
import { destinationSuppression, endpointPrefixOf, type DestinationPolicy } from '../../../functions/core/policy/destination-policy';
import type { RenderedMessage } from '../../../functions/core/templates/rendered-message';
import { NO_SMS_COUNTRIES } from '../../../functions/core/policy/sms-country-table';
import { smsCountryTable } from '../../../lib/sms-countries';

const SHOP = 'arn:aws:sns:us-east-1:123456789012:app/GCM/shop';
const OTHER = 'arn:aws:sns:us-east-1:123456789012:app/APNS/other';
const endpointOf = (app: string) => `${endpointPrefixOf(app)}0f1e2d3c-aaaa-bbbb-cccc-1234567890ab`;

const sms = (to: string): RenderedMessage => ({ channel: 'sms', to, text: 'code 123456' });
const email: RenderedMessage = { channel: 'email', to: 'a@shop.example', subject: 's', text: 't' };
const push = (to: string): RenderedMessage => ({ channel: 'push', to, title: 't', text: 't' });

describe('where a message may go', () => {
  it('a policy that leaves a field out allows every destination of its channel', () => {
    for (const message of [sms('+882123456789'), email, push(endpointOf(OTHER))]) expect(destinationSuppression(message, {})).toBeUndefined();
  });

  it('an SMS outside the countries is refused, the reason naming the allowed countries (never the number)', () => {
    const policy: DestinationPolicy = { sms: smsCountryTable(['US', 'CA']) };
    expect(destinationSuppression(sms('+14155550123'), policy)).toBeUndefined();
    expect(destinationSuppression(sms('+18762345678'), policy)).toEqual({
      reason: 'CountryNotAllowed',
      detail: 'CountryNotAllowed: the number is in none of the SMS countries (CA, US)',
    });
  });

  it('without SMS countries (a sender without a table, a stack with SMS off) every SMS is refused, the reason saying none is allowed', () => {
    expect(NO_SMS_COUNTRIES.allowed).toEqual([]);
    expect(destinationSuppression(sms('+14155550123'), { sms: NO_SMS_COUNTRIES })).toEqual({
      reason: 'CountryNotAllowed',
      detail: 'CountryNotAllowed: the number is in none of the SMS countries (none)',
    });
  });

  it('the SMS countries do not apply to e-mail or push, nor the push applications to e-mail or SMS', () => {
    const policy: DestinationPolicy = { sms: smsCountryTable(['US']), pushApplicationArns: [SHOP] };
    expect(destinationSuppression(email, policy)).toBeUndefined();
    expect(destinationSuppression(push(endpointOf(SHOP)), policy)).toBeUndefined();
    expect(destinationSuppression(sms('+14155550123'), policy)).toBeUndefined();
  });

  it('a push may reach an endpoint of any one of the configured platform applications, and of no other', () => {
    const policy: DestinationPolicy = { pushApplicationArns: [SHOP, OTHER] };
    expect(destinationSuppression(push(endpointOf(SHOP)), policy)).toBeUndefined();
    expect(destinationSuppression(push(endpointOf(OTHER)), policy)).toBeUndefined();
    expect(destinationSuppression(push(endpointOf(`${SHOP}-app`)), policy)).toEqual({
      reason: 'PushApplicationNotAllowed',
      detail: 'PushApplicationNotAllowed: the endpoint belongs to no configured platform application',
    });
  });

  it('the endpoint prefix of an application is its ARN with app/ turned into endpoint/, and a slash', () => {
    expect(endpointPrefixOf(SHOP)).toBe('arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop/');
  });
});
