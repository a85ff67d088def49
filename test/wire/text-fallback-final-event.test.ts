import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey, type Channel } from '../../functions/core/event/idempotency-key';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { EumEventRecord } from '../../local/aws/local-eum';
import { sqsEvent } from '../status/eum-fixtures';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { startFallbackRig, type FallbackRig } from './fallback-rig';

/**
 * A text to a number the carrier cannot reach, through the real SDK clients: the local End User Messaging accepts it
 * and reports TEXT_PENDING and TEXT_CARRIER_UNREACHABLE as intermediate statuses, then TEXT_UNREACHABLE as the final
 * one (`isFinal`, "Example SMS event data"). Only the final event may send the e-mail.
 */
const db = useTestLedger();
const UNREACHABLE = '+14155550142';

let rig: FallbackRig;
beforeAll(async () => {
  rig = await startFallbackRig(db, { eum: { unreachable: [UNREACHABLE] } });
}, 30_000);
afterAll(async () => rig?.stop());

const keyOf = (event: NotificationEvent, channel: Channel) =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel, templateId: event.templateId });

/** The events the local End User Messaging emitted for `key`, in order. */
function eventsOf(key: string): EumEventRecord[] {
  return rig.wire.eum
    .events()
    .map(({ event }) => event)
    .filter((event) => event.context?.['idempotency-key'] === key);
}

/** `events` through the stack's path (raw SQS bodies) to the status handler, the stream to the trigger, its requests to a sender. */
async function record(...events: EumEventRecord[]): Promise<void> {
  await rig.status.invoke(sqsEvent(...events.map((event) => ({ ...event }))));
  await rig.drainStream();
  await rig.pump(rig.sender());
  await rig.drainStream();
}

describe('a text the carrier cannot reach, then the e-mail', () => {
  it('intermediate failures send no e-mail; the final TEXT_UNREACHABLE sends it, once', async () => {
    const event = orderShippedEvent({
      eventId: 'evt-fallback-unreachable-text',
      occurredAt: new Date(rig.clock.now()).toISOString(),
      recipients: [{ recipientId: 'buyer-17', phone: UNREACHABLE, email: 'buyer@example.com', channels: [], fallback: ['sms', 'email'] }],
    });
    const sender = rig.sender({ smsProvider: 'end-user-messaging' });
    expect(failedIds(await sender.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    await rig.drainStream();
    await rig.pump(sender);
    const smsKey = keyOf(event, 'sms');
    const emailKey = keyOf(event, 'email');
    expect(rig.wire.accepted(smsKey)).toBe(1);
    await rig.wire.eum.settled();
    const [pending, carrierUnreachable, unreachable, ...more] = eventsOf(smsKey);
    expect([pending, carrierUnreachable, unreachable].map((e) => [e?.eventType, e?.isFinal])).toEqual([
      ['TEXT_PENDING', false],
      ['TEXT_CARRIER_UNREACHABLE', false],
      ['TEXT_UNREACHABLE', true],
    ]);
    expect(more).toEqual([]);

    await record(pending!, carrierUnreachable!);
    expect(rig.wire.accepted(emailKey)).toBe(0);
    expect(await rig.wire.ledger.get(smsKey)).toMatchObject({ state: 'SENT', deliveryStatus: 'TEXT_CARRIER_UNREACHABLE', deliveryStatusIntermediate: true });

    // The final word, twice (at least once delivery), and the intermediate one again, late: one e-mail.
    await record(unreachable!, unreachable!, carrierUnreachable!);
    expect(rig.wire.accepted(emailKey)).toBe(1);
    expect(await rig.wire.ledger.get(emailKey)).toMatchObject({ state: 'SENT', replaces: smsKey });
    await record(unreachable!);
    expect(rig.wire.accepted(emailKey)).toBe(1);
  });
});
