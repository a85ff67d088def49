import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { pushDuplicateCounts, shownPushes } from '../../local/aws/push-device-view';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { faultFirst, startWireRig, type WireRig } from './wire-harness';

const db = useTestLedger();
let rig: WireRig;
beforeAll(async () => {
  rig = await startWireRig(db);
});
afterAll(async () => rig?.stop());

const isPublish = (r: { operation: string }) => r.operation === 'Publish';

describe('an otp push whose answer was lost is resent, and the device shows it once', () => {
  it.each(['GCM', 'APNS'])('to %s: the resend carries the same collapse id and tag, and the code lifetime', async (platform) => {
    const eventId = `evt-wire-push-lost-answer-${platform}`;
    const endpoint = `arn:aws:sns:us-east-1:123456789012:endpoint/${platform}/shop-app/0f1e2d3c-aaaa-bbbb-cccc-00000000000${platform.length}`;
    const body = JSON.stringify(
      loginCodeEvent({ eventId, data: { code: '482913', expiresInMinutes: 5 }, recipients: [{ recipientId: 'user-9', pushEndpointArn: endpoint, channels: ['push'] }] }),
    );
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'push', templateId: 'login-code' });
    const clock = new ControlledClock();
    // SNS accepts the first Publish; its answer never reaches the sender (connection reset).
    rig.snsProxy.setDecider(faultFirst(isPublish, { kind: 'lose-response' }));

    const first = rig.sender(clock);
    expect(failedIds(await first.invoke(sqsRecord(body)))).toHaveLength(1);
    expect(first.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    clock.advance(2_000);
    // SQS redelivers to another execution environment: class otp resends with the same key.
    const second = rig.sender(clock);
    expect(failedIds(await second.invoke(sqsRecord(body)))).toEqual([]);
    expect(second.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });

    const published = rig.sns.accepted().filter((p) => p.key === key);
    expect(published).toHaveLength(2);
    const identity = published.map((p) => ({
      collapseId: p.attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID'],
      tag: (JSON.parse((JSON.parse(p.message) as { GCM: string }).GCM) as { fcmV1Message: { message: { android: { notification: { tag: string } } } } })
        .fcmV1Message.message.android.notification.tag,
      ttl: [p.attributes['AWS.SNS.MOBILE.APNS.TTL'], p.attributes['AWS.SNS.MOBILE.FCM.TTL']],
      priority: p.attributes['AWS.SNS.MOBILE.APNS.PRIORITY'],
    }));
    // The code's 5 minutes count from the event (30 s before the clock), not from each send (review defect 6).
    expect(identity).toEqual([
      { collapseId: key, tag: key, ttl: ['270', '270'], priority: '10' },
      { collapseId: key, tag: key, ttl: ['268', '268'], priority: '10' },
    ]);
    expect(shownPushes(published)).toMatchObject([{ platform, collapseId: key, deliveries: 2 }]);
    expect(pushDuplicateCounts(published)).toEqual({ providerSide: 1, deviceVisible: 0, hiddenByOtherMessages: 0 });
  });
});
