import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../functions/core/event/idempotency-key';
import type { Recipient } from '../../../functions/core/event/notification-event';
import { addressFor, maskAddress } from '../../../functions/core/event/recipient-address';

const ENDPOINT = 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab';

function recipient(fields: Partial<Recipient>): Recipient {
  return { recipientId: 'r-1', channels: ['email'], ...fields };
}

/** The address the channel would use, or the reason it cannot. */
function resolve(channel: Channel, fields: Partial<Recipient>): string {
  const result = addressFor(recipient(fields), channel);
  return result.ok ? `ok ${result.address}` : result.reason;
}

describe('addressFor: one channel, one address, validated', () => {
  it.each([
    ['+14155550101', true],
    ['+1234567', true], // 7 digits, the fewest E.164 allows here
    ['+123456789012345', true], // 15 digits, the most
    ['+123456', false],
    ['+1234567890123456', false],
    ['+01234567', false], // no country code starts with 0
    ['14155550101', false],
    [' +14155550101', false],
    ['+14155550101 ', false],
    ['+1415555010a', false],
  ])('sms: %s is E.164: %s', (phone, valid) => {
    expect(resolve('sms', { phone })).toBe(valid ? `ok ${phone}` : 'InvalidAddress: phone number is not E.164 (+ and 7 to 15 digits)');
  });

  it.each([
    [ENDPOINT, true],
    ['arn:aws-cn:sns:cn-north-1:123456789012:endpoint/APNS/app.v2/abc-123', true],
    ['arn:aws:sns:us-east-1:123456789012:orders', false], // a topic, not a platform endpoint
    ['arn:aws:sns:us-east-1:12345678901:endpoint/GCM/app/abc', false],
    ['arn:aws:sqs:us-east-1:123456789012:endpoint/GCM/app/abc', false],
    [`x${ENDPOINT}`, false],
    [`${ENDPOINT}/more`, false],
    ['arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/a_b', false],
    ['arn:aws:sns:US-EAST-1:123456789012:endpoint/GCM/app/abc', false],
  ])('push: %s is an SNS platform endpoint ARN: %s', (pushEndpointArn, valid) => {
    expect(resolve('push', { pushEndpointArn })).toBe(
      valid ? `ok ${pushEndpointArn}` : 'InvalidAddress: push endpoint is not an SNS platform endpoint ARN',
    );
  });

  it('email: a valid address is used, an invalid one is refused without repeating it', () => {
    expect(resolve('email', { email: 'buyer@example.com' })).toBe('ok buyer@example.com');
    expect(resolve('email', { email: 'buyer-at-example.com' })).toBe('InvalidAddress: email address is not valid');
  });

  it.each([
    ["o'brien@example.com", true],
    ['first.last+tag@mail.example.co.uk', true],
    ['a_b-c@x-y.example', true],
    ['.buyer@example.com', false],
    ['buyer.@example.com', false],
    ['bu..yer@example.com', false],
    ["buyer'@example.com", false],
    ['buyer@-example.com', false],
    ['buyer@example', false],
    ['buyer@example.c', false],
    ['buyer@example.c0m', false],
    ['büyer@example.com', false],
    ['buyer @example.com', false],
    ['buyer@example.com>', false],
    ['buyer@example.com, other@example.com', false],
  ])('email: %s is an address: %s', (email, valid) => {
    expect(resolve('email', { email })).toBe(valid ? `ok ${email}` : 'InvalidAddress: email address is not valid');
  });

  it.each([
    ['email', 'InvalidAddress: no email address for channel email'],
    ['sms', 'InvalidAddress: no phone number for channel sms'],
    ['push', 'InvalidAddress: no push endpoint ARN for channel push'],
  ] as const)('%s without an address for it says which is missing', (channel, reason) => {
    expect(resolve(channel, { email: '', phone: '', pushEndpointArn: '' })).toBe(reason);
    expect(resolve(channel, {})).toBe(reason);
  });

  it("each channel reads its own field only", () => {
    const all = { email: 'buyer@example.com', phone: '+14155550101', pushEndpointArn: ENDPOINT };
    expect(resolve('email', all)).toBe('ok buyer@example.com');
    expect(resolve('sms', all)).toBe('ok +14155550101');
    expect(resolve('push', all)).toBe(`ok ${ENDPOINT}`);
  });
});

describe('maskAddress: enough to recognise, not enough to reuse', () => {
  it.each([
    ['buyer@example.com', 'b***@example.com'],
    ['+447700900123', '+44********23'],
    ['+1234', '+1234'],
    ['+123', '+1223'],
    [ENDPOINT, 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/***'],
    ['@example.com', '***'],
    ['user-9', '***'],
    ['not/an/arn', '***'],
  ])('%s -> %s', (address, masked) => {
    expect(maskAddress(address)).toBe(masked);
  });
});
