import { describe, expect, it } from 'vitest';
import { pushDuplicateCounts, shownPushes, type SnsPublish } from '../../local/aws/push-device-view';

const GCM = 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-000000000017';
const APNS = 'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/shop-app/5a6b7c8d-1111-2222-3333-000000000004';
const SANDBOX = 'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS_SANDBOX/shop-app/5a6b7c8d-1111-2222-3333-000000000005';

/** A push as the sender publishes it, with `tag` as FCM tag and `collapseId` as the APNs attribute (each left out when undefined). */
function push(target: string, key: string, options: { tag?: string; collapseId?: string; body?: string; at?: number } = {}): SnsPublish {
  const body = options.body ?? 'Order 1001 is on its way.';
  const notification = { title: 'Order shipped', body };
  const android = options.tag === undefined ? {} : { android: { notification: { tag: options.tag } } };
  const apns = JSON.stringify({ aps: { alert: notification } });
  return {
    channel: 'push',
    key,
    target,
    messageStructure: 'json',
    message: JSON.stringify({ default: body, GCM: JSON.stringify({ fcmV1Message: { message: { notification, ...android } } }), APNS: apns, APNS_SANDBOX: apns }),
    attributes: options.collapseId === undefined ? {} : { 'AWS.SNS.MOBILE.APNS.COLLAPSE_ID': options.collapseId },
    acceptedAt: options.at ?? 0,
  };
}
const sms: SnsPublish = { channel: 'sms', key: 'k-sms', target: '+14155550101', message: 'code', messageStructure: undefined, attributes: {}, acceptedAt: 0 };

describe('pushes as the devices show them', () => {
  it('a second push with the same FCM tag replaces the first on an Android device, showing the latest', () => {
    const shown = shownPushes([push(GCM, 'k1', { tag: 'k1', at: 1 }), sms, push(GCM, 'k1', { tag: 'k1', body: 'resent', at: 2 })]);
    expect(shown).toEqual([
      { target: GCM, platform: 'GCM', collapseId: 'k1', title: 'Order shipped', body: 'resent', deliveries: 2, keys: ['k1'], lastAt: 2 },
    ]);
  });

  it('APNs merges on the collapse id attribute, for production and sandbox endpoints, and ignores an FCM tag', () => {
    const shown = shownPushes([
      push(APNS, 'k1', { collapseId: 'k1' }),
      push(APNS, 'k1', { collapseId: 'k1' }),
      push(SANDBOX, 'k2', { collapseId: 'k2' }),
      push(SANDBOX, 'k2', { collapseId: 'k2' }),
      push(APNS, 'k3', { tag: 'k3' }),
      push(APNS, 'k3', { tag: 'k3' }),
    ]);
    expect(shown.map((s) => [s.platform, s.collapseId, s.deliveries])).toEqual([
      ['APNS', 'k1', 2],
      ['APNS_SANDBOX', 'k2', 2],
      ['APNS', undefined, 1],
      ['APNS', undefined, 1],
    ]);
  });

  it('an Android device ignores the APNs attribute; a push without a tag is shown once per delivery', () => {
    expect(shownPushes([push(GCM, 'k1', { collapseId: 'k1' }), push(GCM, 'k1', { collapseId: 'k1' })]).map((s) => s.deliveries)).toEqual([1, 1]);
  });

  it('the same collapse id on two devices is two notifications', () => {
    expect(shownPushes([push(GCM, 'k1', { tag: 'k1' }), push(APNS, 'k1', { collapseId: 'k1' })])).toHaveLength(2);
  });

  it("reads a legacy FCM payload's notification.tag too", () => {
    const legacy: SnsPublish = {
      ...push(GCM, 'k1'),
      message: JSON.stringify({ default: 'x', GCM: JSON.stringify({ notification: { title: 'T', body: 'B', tag: 'k1' } }) }),
    };
    expect(shownPushes([legacy, legacy])).toMatchObject([{ collapseId: 'k1', title: 'T', body: 'B', deliveries: 2 }]);
  });
});

describe('push duplicates, as the provider saw them and as people would', () => {
  it('a resend with the key as collapse id is a provider-side duplicate, not a visible one', () => {
    expect(pushDuplicateCounts([push(GCM, 'k1', { tag: 'k1' }), push(GCM, 'k1', { tag: 'k1' }), push(APNS, 'k2', { collapseId: 'k2' }), sms, sms])).toEqual({
      providerSide: 1,
      deviceVisible: 0,
      hiddenByOtherMessages: 0,
    });
  });

  it('without a collapse identity every resend is visible', () => {
    expect(pushDuplicateCounts([push(GCM, 'k1'), push(GCM, 'k1'), push(GCM, 'k1'), push(APNS, 'k2'), push(APNS, 'k2')])).toEqual({
      providerSide: 3,
      deviceVisible: 3,
      hiddenByOtherMessages: 0,
    });
  });

  it('a collapse id shared by two messages hides one of them, and says so', () => {
    expect(pushDuplicateCounts([push(GCM, 'k1', { tag: 'order-shipped' }), push(GCM, 'k2', { tag: 'order-shipped' })])).toEqual({
      providerSide: 0,
      deviceVisible: 0,
      hiddenByOtherMessages: 1,
    });
  });
});
