import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { METRIC } from '../../functions/core/observability/metric-names';
import { createStatusHandler } from '../../functions/status/create-status-handler';
import { startLocalSesEvents, type LocalSesEvents } from '../../local/aws/local-ses-events';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import type { SesEventFate } from '../../local/aws/ses-sending-events';
import { ControlledClock } from '../support/controlled-clock';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { faultFirst, startWireRig, type WireRig } from './wire-harness';

/**
 * E-mail evidence on the stack's path, locally: the local SES publishes each accepted e-mail's events (Send, Delivery)
 * to the SNS topic, the topic delivers them to the SES events queue, and the real status handler takes the queue in
 * batches through the local SQS event source mapping. A transactional e-mail whose SendEmail answer was lost is then
 * settled by that evidence on its next delivery: one e-mail, no resend. Lose the events (the fault plan's call) and
 * its class's wait settles it instead, counted as SettledByWait.
 */
const db = useTestLedger();
let sqs: LocalSqs;
let rig: WireRig;
let path: LocalSesEvents;
const fates = new Map<string, SesEventFate>();
const statusMetrics = new InMemoryMetrics();
const clock = new ControlledClock();

beforeAll(async () => {
  sqs = await startLocalSqs();
  path = await startLocalSesEvents({
    sqs,
    tableName: db.tableName,
    metrics: statusMetrics,
    log: silentLog,
    clock: clock.now,
    statusHandler: createStatusHandler({ store: db.ledger, metrics: statusMetrics, log: silentLog, clock: clock.now }),
  });
  rig = await startWireRig(db, {
    ses: { events: (event) => path.publish(event), sendingEvents: { fate: (key) => (key !== undefined ? fates.get(key) : undefined) ?? 'deliver' } },
  });
}, 30_000);
afterAll(async () => {
  await rig?.stop();
  await path?.stop();
  await sqs?.stop();
});

const isSendEmail = (r: { operation: string }) => r.operation === 'SendEmail';

/** One transactional e-mail to the seller, its SendEmail's answer lost. */
function story(eventId: string) {
  const event = orderShippedEvent({ eventId, recipients: [{ recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] }] });
  const key = idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' });
  const sender = rig.sender(clock);
  rig.sesProxy.setDecider(faultFirst(isSendEmail, { kind: 'lose-response' }));
  return { key, sender, deliver: async () => failedIds(await sender.invoke(sqsRecord(JSON.stringify(event)))).length === 0 };
}

/** Waits until the status function recorded an event on the row (through topic, queue and event source). */
async function evidenceOn(key: string, budgetMs = 10_000): Promise<string | undefined> {
  const until = Date.now() + budgetMs;
  while (Date.now() < until) {
    const row = await db.ledger.get(key);
    if (row?.deliveryStatus === 'Delivery') return row.deliveryStatus;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return (await db.ledger.get(key))?.deliveryStatus;
}

describe('SES evidence through SNS -> SQS -> status event source', () => {
  it('answer lost, events delivered: SENT by evidence under SES\'s own id, one e-mail, nothing resent', async () => {
    const s = story('evt-ses-path-delivered');
    expect(await s.deliver()).toBe(false);
    expect(s.sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(await evidenceOn(s.key)).toBe('Delivery');
    clock.advance(1_000);
    expect(await s.deliver()).toBe(true);

    const [mail] = rig.ses.accepted().filter((e) => e.key === s.key);
    expect(rig.accepted(s.key)).toBe(1);
    expect(await db.ledger.get(s.key)).toMatchObject({ state: 'SENT', providerMessageId: mail!.messageId });
    expect(s.sender.metrics.get(METRIC.SentByEvidence)).toBe(1);
    expect(s.sender.metrics.get(METRIC.SettledByWait)).toBe(0);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
    // The events came as SQS records of the events queue, in batches, through the event source mapping.
    expect(path.source.stats.received).toBeGreaterThanOrEqual(2);
    expect(path.source.invocations.length).toBeGreaterThan(0);
  });

  it('answer lost and its events lost: the transactional wait runs out, one resend, counted SettledByWait', async () => {
    const s = story('evt-ses-path-lost');
    fates.set(s.key, 'drop');
    expect(await s.deliver()).toBe(false);
    await rig.ses.settled();
    expect(await evidenceOn(s.key, 500)).toBeUndefined();
    clock.advance(301_000);
    expect(await s.deliver()).toBe(true);

    expect(rig.accepted(s.key)).toBe(2);
    expect(s.sender.metrics.get(METRIC.SettledByWait)).toBe(1);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
  });
});
