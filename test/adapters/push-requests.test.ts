import { describe, expect, it } from 'vitest';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { APNS_COLLAPSE_ID_MAX_BYTES } from '../../functions/core/templates/push-payload';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { AcceptedPublish } from '../../local/aws/local-sns-server';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { useLocalSns } from '../support/local-sns-client';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

/**
 * The push each class sends, on each platform the stack allows, through the real sender and the real
 * SNS client, as the local SNS server received it on the wire (form-encoded Publish).
 */
const db = useTestLedger();
const local = useLocalSns();

const PLATFORMS = ['GCM', 'APNS', 'APNS_SANDBOX'] as const;
const endpoint = (platform: string) => `arn:aws:sns:eu-west-1:123456789012:endpoint/${platform}/shop-app/5a6b7c8d-1111-2222-3333-000000000004`;

/**
 * The events occur at the sender's clock: a push's lifetime counts from its event (review defect 6), so the TTL is
 * the whole lifetime here (otp-push-lifetime-counted-from-send.test.ts holds what an older event gets).
 */
const AT_THE_SEND = '2026-11-29T12:00:00.000Z';

/** One push of each class's shipped template to `platform`; `data` replaces the event's data. */
function pushEvent(messageClass: 'otp' | 'transactional' | 'marketing', platform: string, eventId: string, data?: NotificationEvent['data']) {
  const recipient = { recipientId: 'person-1', pushEndpointArn: endpoint(platform), channels: ['push' as const] };
  const base =
    messageClass === 'otp'
      ? loginCodeEvent({ eventId, occurredAt: AT_THE_SEND, recipients: [recipient] })
      : messageClass === 'transactional'
        ? orderShippedEvent({ eventId, occurredAt: AT_THE_SEND, recipients: [recipient] })
        : orderShippedEvent({
            eventId,
            messageClass: 'marketing',
            occurredAt: AT_THE_SEND,
            templateId: 'weekly-offers',
            data: { headline: 'Up to 30% off garden tools', url: 'https://shop.example.com/offers' },
            recipients: [recipient],
          });
  const event = data ? { ...base, data } : base;
  return { event, key: idempotencyKey({ eventId, recipientId: 'person-1', channel: 'push', templateId: event.templateId }) };
}

async function publishOf(event: NotificationEvent, key: string): Promise<AcceptedPublish> {
  const provider = new SnsProvider(local.client);
  const harness = new SenderHarness({ ledger: db.ledger, providers: { email: provider, sms: provider, push: provider } });
  expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
  const published = local.sns.accepted().filter((p) => p.key === key);
  expect(published).toHaveLength(1);
  return published[0]!;
}

const CLASSES = {
  otp: { ttl: '600', priority: 'high', apnsPriority: '10', shown: { title: 'Your sign-in code', body: '482913 (expires in 10 minutes)' } },
  transactional: { ttl: '259200', priority: 'high', apnsPriority: '10', shown: { title: 'Order shipped', body: 'Order 1001 is on its way.' } },
  marketing: { ttl: '86400', priority: 'normal', apnsPriority: '5', shown: { title: 'New offers', body: 'Up to 30% off garden tools' } },
} as const;

describe('every push carries the key as collapse identity, and its class lifetime and priority, on every platform', () => {
  const cases = PLATFORMS.flatMap((platform) => (['otp', 'transactional', 'marketing'] as const).map((messageClass) => ({ platform, messageClass })));

  it.each(cases)('$messageClass to $platform: the exact Publish', async ({ platform, messageClass }) => {
    const { event, key } = pushEvent(messageClass, platform, `evt-push-exact-${messageClass}-${platform}`);
    const publish = await publishOf(event, key);
    const expected = CLASSES[messageClass];

    expect(publish).toMatchObject({ channel: 'push', target: endpoint(platform), messageStructure: 'json' });
    expect(publish.attributes).toEqual({
      'notifier.idempotency-key': key,
      'AWS.SNS.MOBILE.APNS.COLLAPSE_ID': key,
      'AWS.SNS.MOBILE.APNS.PRIORITY': expected.apnsPriority,
      'AWS.SNS.MOBILE.APNS.PUSH_TYPE': 'alert',
      'AWS.SNS.MOBILE.APNS.TTL': expected.ttl,
      'AWS.SNS.MOBILE.APNS_SANDBOX.TTL': expected.ttl,
      'AWS.SNS.MOBILE.FCM.TTL': expected.ttl,
    });
    const apns = JSON.stringify({ aps: { alert: expected.shown }, idempotencyKey: key });
    expect(JSON.parse(publish.message)).toEqual({
      default: expected.shown.body,
      GCM: JSON.stringify({
        fcmV1Message: {
          message: {
            notification: expected.shown,
            data: { idempotencyKey: key },
            android: { priority: expected.priority, notification: { tag: key } },
            apns: { headers: { 'apns-collapse-id': key, 'apns-priority': expected.apnsPriority } },
          },
        },
      }),
      APNS: apns,
      APNS_SANDBOX: apns,
    });
    expect(Buffer.byteLength(publish.attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID']!, 'utf8')).toBeLessThanOrEqual(APNS_COLLAPSE_ID_MAX_BYTES);
  });

  it('the collapse id is the key, computed from the message identity alone: the same in any process, on any day', async () => {
    const { event, key } = pushEvent('otp', 'APNS', 'evt-push-stable-id');
    // Computed once, by hand, with the formula in docs/design.md; a change here resets every collapse id.
    expect(key).toBe('b3fc7c7f6907072f6177224f937ae86708f41445b6eda73cfb74f2e072bf9fd5');
    expect((await publishOf(event, key)).attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID']).toBe(key);
  });

  it.each([
    ['3 minutes', 3, '180'],
    ['0: the code is already spent', 0, '0'],
  ])("an otp push lives as long as its code, from the event's expiresInMinutes: %s", async (_what, minutes, ttl) => {
    const { event, key } = pushEvent('otp', 'GCM', `evt-push-otp-ttl-${String(minutes)}`, { code: '482913', expiresInMinutes: minutes });
    const { attributes } = await publishOf(event, key);
    expect([attributes['AWS.SNS.MOBILE.APNS.TTL'], attributes['AWS.SNS.MOBILE.APNS_SANDBOX.TTL'], attributes['AWS.SNS.MOBILE.FCM.TTL']]).toEqual([ttl, ttl, ttl]);
  });

  it("an otp push whose event does not say how long its code is valid lives the class's 10 minutes", async () => {
    const { event, key } = pushEvent('otp', 'APNS', 'evt-push-otp-no-validity', { code: '482913', expiresInMinutes: 'soon' });
    expect((await publishOf(event, key)).attributes['AWS.SNS.MOBILE.APNS.TTL']).toBe('600');
  });
});
