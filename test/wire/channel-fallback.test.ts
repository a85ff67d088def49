import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey, type Channel } from '../../functions/core/event/idempotency-key';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { METRIC } from '../../functions/core/observability/metric-names';
import { snsEvent, sesEvent } from '../status/status-fixtures';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { startFallbackRig, type FallbackRig } from './fallback-rig';
import { faultFirst } from './wire-harness';
import type { SenderHarness } from '../support/sender-harness';

const db = useTestLedger();
const DISABLED_ENDPOINT = 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-dead-bbbb-cccc-1234567890ab';
const PUSH_ENDPOINT = 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab';
const OPTED_OUT = '+14155550199';
// The otp class's window made short (1 s), so that SQS's real delay passes within the test.
const SHORT_OTP = JSON.stringify([{ name: 'otp', onAmbiguous: 'resend', fallback: { withoutEvidenceSeconds: 1 } }]);

let rig: FallbackRig;
beforeAll(async () => {
  rig = await startFallbackRig(db, { sns: { disabledEndpoints: [DISABLED_ENDPOINT] }, eum: { optedOut: [OPTED_OUT] }, messageClassesJson: SHORT_OTP });
}, 30_000);
afterAll(async () => rig?.stop());

const keyOf = (event: NotificationEvent, channel: Channel) =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel, templateId: event.templateId });

function shipped(eventId: string, recipient: NotificationEvent['recipients'][number]): NotificationEvent {
  return orderShippedEvent({ eventId, occurredAt: new Date(rig.clock.now()).toISOString(), recipients: [recipient] });
}

/** The event delivered until acknowledged, its writes through the stream to the trigger, the trigger's requests to a sender. */
async function sendAndFollow(event: NotificationEvent, options: { readonly smsProvider?: 'sns' | 'end-user-messaging' } = {}): Promise<void> {
  const sender = rig.sender(options);
  expect(failedIds(await sender.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
  await rig.drainStream();
  await rig.pump(sender);
  await rig.drainStream();
}

/** The push's answer lost on the wire: the request reached SNS, the sender cannot know (ambiguous). */
function losePushAnswer(): void {
  rig.wire.snsProxy.setDecider(faultFirst((r) => r.operation === 'Publish', { kind: 'lose-response' }));
}

/** Delivers the event until the sender acknowledges it, the clock moving `stepMs` between receives (at most 10). */
async function deliverUntilAcknowledged(sender: SenderHarness, event: NotificationEvent, stepMs: number): Promise<void> {
  for (let receive = 0; receive < 10; receive += 1) {
    if (failedIds(await sender.invoke(sqsRecord(JSON.stringify(event), 'm-1', { receiveCount: receive + 1 }))).length === 0) return;
    rig.clock.advance(stepMs);
  }
  throw new Error('the event was never acknowledged');
}

describe('channel fallback through the real SDK clients', () => {
  it('a disabled push endpoint: the e-mail instead, once; the e-mail row and its outcome name the push it replaces', async () => {
    const event = shipped('evt-fallback-disabled-push', { recipientId: 'buyer-17', pushEndpointArn: DISABLED_ENDPOINT, email: 'buyer@example.com', channels: [], fallback: ['push', 'email'] });
    await sendAndFollow(event);
    expect(await rig.wire.ledger.get(keyOf(event, 'push'))).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^EndpointDisabled/) });
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(1);
    expect(await rig.wire.ledger.get(keyOf(event, 'email'))).toMatchObject({ state: 'SENT', replaces: keyOf(event, 'push') });
    // Another delivery of the event, and another of the stream: still one e-mail.
    await sendAndFollow(event);
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(1);
  });

  it('a hard bounce recorded by the status function: the text, once', async () => {
    const event = shipped('evt-fallback-hard-bounce', { recipientId: 'buyer-17', email: 'buyer@example.com', phone: '+447700900123', channels: [], fallback: ['email', 'sms'] });
    await sendAndFollow(event);
    const emailKey = keyOf(event, 'email');
    expect(rig.wire.accepted(emailKey)).toBe(1);
    expect(rig.wire.accepted(keyOf(event, 'sms'))).toBe(0);
    const mailAt = new Date(rig.clock.now()).toISOString();
    // The bounce arrives twice (SNS delivers at least once): one text.
    await rig.status.invoke(snsEvent(sesEvent('Bounce', { key: emailKey, mailAt, at: mailAt, claimVersion: 1 })));
    await rig.status.invoke(snsEvent(sesEvent('Bounce', { key: emailKey, mailAt, at: mailAt, claimVersion: 1 })));
    await rig.drainStream();
    await rig.pump(rig.sender(), rig.sender());
    expect(rig.wire.accepted(keyOf(event, 'sms'))).toBe(1);
    expect(await rig.wire.ledger.get(keyOf(event, 'sms'))).toMatchObject({ state: 'SENT', replaces: emailKey });
  });

  it('an opted-out number: the e-mail instead, once', async () => {
    const event = shipped('evt-fallback-opted-out', { recipientId: 'buyer-17', phone: OPTED_OUT, email: 'buyer@example.com', channels: [], fallback: ['sms', 'email'] });
    await sendAndFollow(event, { smsProvider: 'end-user-messaging' });
    expect(await rig.wire.ledger.get(keyOf(event, 'sms'))).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^OptedOut:/) });
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(1);
  });

  it('an ambiguous push (answer lost): no e-mail for an order update (transactional), nothing asked of the sender', async () => {
    const event = shipped('evt-fallback-no-evidence-transactional', { recipientId: 'buyer-17', pushEndpointArn: PUSH_ENDPOINT, email: 'buyer@example.com', channels: [], fallback: ['push', 'email'] });
    const requested = rig.triggerMetrics.get(METRIC.FallbackRequested) ?? 0;
    losePushAnswer();
    const sender = rig.sender();
    // Ambiguous, then settled by the class (evidence wait, then resend): possibly delivered, never certainly not.
    await deliverUntilAcknowledged(sender, event, 301_000);
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBeGreaterThanOrEqual(1);
    await rig.drainStream();
    rig.clock.advance(3_600_000);
    await rig.drainStream();
    expect(await rig.pump(rig.sender())).toBe(0);
    expect(rig.triggerMetrics.get(METRIC.FallbackRequested) ?? 0).toBe(requested);
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(0);
  });

  it('an ambiguous push (answer lost): the e-mail after the class\'s window for a sign-in code (otp), once, counted apart', async () => {
    const event = loginCodeEvent({
      eventId: 'evt-fallback-no-evidence-otp',
      occurredAt: new Date(rig.clock.now()).toISOString(),
      recipients: [{ recipientId: 'user-9', pushEndpointArn: PUSH_ENDPOINT, email: 'user9@example.com', channels: [], fallback: ['push', 'email'] }],
    });
    losePushAnswer();
    const sender = rig.sender();
    await deliverUntilAcknowledged(sender, event, 1_000);
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBeGreaterThanOrEqual(1);
    await rig.drainStream();
    // The request is on the queue, held back by SQS for the window (1 s): not visible yet.
    expect(await rig.pump(sender)).toBe(0);
    // A request that arrives before the window's end (a clock ahead) sends nothing and is handed back for later.
    const { fallbackRequestBody } = await import('../../functions/core/fallback/fallback-request');
    const early = await sender.invoke(sqsRecord(fallbackRequestBody(keyOf(event, 'push')), 'early-1'));
    expect(failedIds(early)).toEqual(['early-1']);
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    rig.clock.advance(1_500);
    expect(await rig.pump(sender, rig.sender())).toBe(1);
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(1);
    expect(sender.metrics.get(METRIC.FallbackWithoutEvidence)).toBe(1);
  });

  it('three requests for one fallback (as the sender\'s refusal, a status event and the reclaimer\'s settling each put one), handled by three senders at once: one send', async () => {
    const event = shipped('evt-fallback-concurrent', { recipientId: 'buyer-17', pushEndpointArn: DISABLED_ENDPOINT, email: 'buyer@example.com', channels: [], fallback: ['push', 'email'] });
    const sender = rig.sender();
    expect(failedIds(await sender.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    await rig.drainStream();
    // Two more requests for the same primary, as further writes of its row (a status, a reclaimer's settling) put them.
    const { fallbackRequestBody } = await import('../../functions/core/fallback/fallback-request');
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    const client = rig.sqs.client();
    for (let i = 0; i < 2; i += 1) await client.send(new SendMessageCommand({ QueueUrl: rig.sqs.queueUrl, MessageBody: fallbackRequestBody(keyOf(event, 'push')) }));
    client.destroy();
    expect(await rig.pump(rig.sender(), rig.sender(), rig.sender())).toBe(3);
    expect(rig.wire.accepted(keyOf(event, 'email'))).toBe(1);
  });
});
