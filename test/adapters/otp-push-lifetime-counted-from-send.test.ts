import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { eumSmsProvider } from '../../functions/adapters/eum-sms-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { deliver, FRESH_CLAIM } from '../../functions/delivery/deliver-message';
import { plansOf } from '../reclaimer/reclaimer-harness';
import { ControlledClock } from '../support/controlled-clock';
import { testDeliveryContext } from '../support/delivery-context';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { useLocalSns } from '../support/local-sns-client';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const local = useLocalSns();
const ENDPOINT = 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/5a6b7c8d-1111-2222-3333-000000000004';
/** The sender harness's clock starts here. */
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

/** A 10-minute sign-in code by push, whose event occurred `ageMs` before the sender's clock. */
function codePush(eventId: string, ageMs: number) {
  const event = loginCodeEvent({
    eventId,
    occurredAt: new Date(NOW - ageMs).toISOString(),
    data: { code: '482913', expiresInMinutes: 10 },
    recipients: [{ recipientId: 'person-1', pushEndpointArn: ENDPOINT, channels: ['push'] }],
  });
  return { event, key: idempotencyKey({ eventId, recipientId: 'person-1', channel: 'push', templateId: 'login-code' }) };
}

async function sendThroughSns(eventId: string, ageMs: number) {
  const { event, key } = codePush(eventId, ageMs);
  const provider = new SnsProvider(local.client);
  const harness = new SenderHarness({ ledger: db.ledger, providers: { email: provider, sms: provider, push: provider } });
  expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
  return { harness, key, published: local.sns.accepted().filter((p) => p.key === key) };
}

/**
 * Review defect 6: an otp push's lifetime counted from the send, not from the code's issue. A 10-minute code whose
 * event came two hours earlier (throttled, held, or resent by the reclaimer) was published with a TTL of 600 s, and
 * the phone showed a code that had expired 110 minutes before. The lifetime now counts from the event's occurredAt; a
 * code whose lifetime ran out is not sent (FAILED LifetimeExpired, counted). The same for End User Messaging's TimeToLive.
 */
describe("an otp push's lifetime counted from the send, not from the code's issue (review defect 6)", () => {
  it('a 10-minute code whose event came two hours earlier is not published: FAILED LifetimeExpired, counted', async () => {
    const { harness, key, published } = await sendThroughSns('evt-push-lifetime-two-hours', 2 * 3_600_000);
    expect(published).toHaveLength(0);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^LifetimeExpired: the event is 7200s old, its push lived 600s/) });
    expect(harness.metrics.get(METRIC.LifetimeExpired)).toBe(1);
  });

  it('a 10-minute code whose event came 4 minutes earlier is published with the 6 minutes it has left', async () => {
    const { published } = await sendThroughSns('evt-push-lifetime-four-minutes', 4 * 60_000);
    expect(published).toHaveLength(1);
    const { attributes } = published[0]!;
    expect([attributes['AWS.SNS.MOBILE.APNS.TTL'], attributes['AWS.SNS.MOBILE.APNS_SANDBOX.TTL'], attributes['AWS.SNS.MOBILE.FCM.TTL']]).toEqual(['360', '360', '360']);
  });

  it("an End User Messaging text gets what is left of its class's TimeToLive, and one past it is not sent", async () => {
    const eum = mockClient(PinpointSMSVoiceV2Client);
    eum.on(SendTextMessageCommand).resolves({ MessageId: 'eum-1' });
    const provider: DeliveryProvider = eumSmsProvider(new PinpointSMSVoiceV2Client({ region: 'us-east-1' }), {
      configurationSetName: 'notifier-sms',
      timeToLiveSeconds: () => 600,
    });
    const refusing: DeliveryProvider = { send: async (): Promise<DeliveryOutcome> => ({ kind: 'permanent', reason: 'not this channel' }) };
    const clock = new ControlledClock(NOW);
    for (const [eventId, ageMs] of [['evt-eum-lifetime-fresh', 4 * 60_000], ['evt-eum-lifetime-late', 2 * 3_600_000]] as const) {
      const [plan] = plansOf(loginCodeEvent({ eventId, occurredAt: new Date(NOW - ageMs).toISOString() }));
      const metricsCtx = testDeliveryContext(db.ledger, refusing, clock, { providers: { email: refusing, sms: provider, push: refusing } });
      await deliver(plan!, FRESH_CLAIM, metricsCtx);
      if (ageMs < 600_000) expect((await db.ledger.get(plan!.key))?.state).toBe('SENT');
      else {
        expect(await db.ledger.get(plan!.key)).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^LifetimeExpired/) });
        expect((metricsCtx.metrics as unknown as { get(n: string): number }).get(METRIC.LifetimeExpired)).toBe(1);
      }
    }
    expect(eum.commandCalls(SendTextMessageCommand).map((call) => call.args[0].input.TimeToLive)).toEqual([360]);
    eum.restore();
  });
});
