import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqsRecordDeferral } from '../../functions/adapters/sqs-record-deferral';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { HOLD_MARGIN_SECONDS, longestHoldSeconds } from '../../functions/core/queue/quiet-hours-hold';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { queueDepth } from '../../local/aws/queue-inspection';
import { toSqsRecord } from '../../local/aws/sqs-record';
import { smsCountryTable } from '../../lib/sms-countries';
import { ConsentWorld } from '../support/consent-world';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const world = new ConsentWorld();
const QUEUE_URL = 'http://127.0.0.1:1/000000000000/bulk';
const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const sqsMock = mockClient(sqs);
afterEach(() => sqsMock.reset());
beforeAll(async () => {
  await world.start(db, new ControlledClock());
});
afterAll(async () => {
  await world.stop();
});

const NEW_YORK = 'America/New_York';
/** 23:30 on 29 November in New York (EST, UTC-5). */
const LATE_EVENING_NY = Date.parse('2026-11-30T04:30:00Z');
const EIGHT_AM_NY = Date.parse('2026-11-30T13:00:00Z');

function harnessAt(clock: ControlledClock, options: { destinations?: { sms: ReturnType<typeof smsCountryTable> } } = {}) {
  sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
  return new SenderHarness({
    ledger: db.ledger,
    clock,
    providers: world.providers,
    consent: world.consent,
    deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    ...options,
  });
}
const visibilityTimeouts = () => sqsMock.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input.VisibilityTimeout);
const keyOf = (event: NotificationEvent) =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel: 'sms', templateId: event.templateId });
const textsTo = (number: string) => world.sns.accepted().filter((p) => p.target === number);
const offersText = (eventId: string, phone: string, timeZone?: string) =>
  weeklyOffersEvent({
    eventId,
    occurredAt: new Date(LATE_EVENING_NY - 60_000).toISOString(),
    recipients: [{ recipientId: `member-${phone}`, phone, ...(timeZone ? { timeZone } : {}), channels: ['sms'] }],
  });

describe('quiet hours: a marketing text waits for the recipient\'s morning, never sent early, never dropped', () => {
  it('a marketing text at 23:30 recipient time is sent at 08:00 and not before (frozen clock)', async () => {
    const clock = new ControlledClock(LATE_EVENING_NY);
    const phone = '+14155550181';
    const event = offersText('evt-quiet-2330', phone, NEW_YORK);
    const body = JSON.stringify(event);

    const first = sqsRecord(body);
    expect(failedIds(await harnessAt(clock).invoke(first))).toEqual([first.messageId]);
    // Back at 08:00 New York time, to the second: 8 h 30 min.
    expect(visibilityTimeouts()).toEqual([8.5 * 3600]);
    const row = await db.ledger.get(keyOf(event));
    expect(row).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(row?.failureReason).toBe('QuietHours: deferred until 2026-11-30T13:00:00.000Z (America/New_York, recipient)');
    expect(textsTo(phone)).toHaveLength(0);

    // Redelivered early (a minute before 08:00): deferred again, for the minute left.
    sqsMock.reset();
    clock.advance(EIGHT_AM_NY - 60_000 - clock.now());
    const early = sqsRecord(body, undefined, { receiveCount: 2 });
    expect(failedIds(await harnessAt(clock).invoke(early))).toEqual([early.messageId]);
    expect(visibilityTimeouts()).toEqual([60]);
    expect(textsTo(phone)).toHaveLength(0);

    // 08:00: sent, once.
    clock.advance(60_000);
    const harness = harnessAt(clock);
    expect(failedIds(await harness.invoke(sqsRecord(body, undefined, { receiveCount: 3 })))).toEqual([]);
    expect(await db.ledger.get(keyOf(event))).toMatchObject({ state: 'SENT' });
    expect(textsTo(phone)).toHaveLength(1);
    await harness.invoke(sqsRecord(body, undefined, { receiveCount: 4 }));
    expect(textsTo(phone)).toHaveLength(1);
  });

  it('an otp text at 23:30 recipient time is sent at once', async () => {
    const clock = new ControlledClock(LATE_EVENING_NY);
    const phone = '+14155550182';
    const code = loginCodeEvent({
      eventId: 'evt-quiet-otp',
      occurredAt: new Date(LATE_EVENING_NY - 30_000).toISOString(),
      recipients: [{ recipientId: 'user-q', phone, timeZone: NEW_YORK, channels: ['sms'] }],
    });
    const harness = harnessAt(clock);
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(code))))).toEqual([]);
    expect(await db.ledger.get(keyOf(code))).toMatchObject({ state: 'SENT' });
    expect(textsTo(phone)).toHaveLength(1);
    expect(harness.metrics.get(METRIC.QuietHoursDeferred)).toBe(0);
    expect(visibilityTimeouts()).toEqual([]);
  });

  it('without a time zone, the number\'s country decides: every US zone must be past 08:00 (Hawaii last)', async () => {
    const clock = new ControlledClock(EIGHT_AM_NY); // 08:00 in New York is 03:00 in Honolulu
    const phone = '+14155550183';
    const event = offersText('evt-quiet-country', phone);
    const harness = harnessAt(clock, { destinations: { sms: smsCountryTable(['US']) } });
    await harness.invoke(sqsRecord(JSON.stringify(event)));
    const row = await db.ledger.get(keyOf(event));
    // 08:00 in Honolulu (HST, UTC-10) is 18:00 UTC; Adak (HST too, in winter) ends at the same instant.
    expect(row?.failureReason).toMatch(/^QuietHours: deferred until 2026-11-30T18:00:00\.000Z \(\d+ zones of the number's country, country\)$/);
    expect(harness.metrics.get(METRIC.QuietHoursDeferred)).toBe(1);
    expect(textsTo(phone)).toHaveLength(0);
  });
});

describe('the visibility timeout of a record held for quiet hours', () => {
  it('brings it back at the end, never before: whole seconds rounded up, at least 1, at most the longest hold SQS accepts', async () => {
    const { secondsUntil } = await import('../../functions/sender/create-sender-handler');
    const longest = longestHoldSeconds({ functionTimeoutSeconds: 30, batchingWindowSeconds: 0 });
    expect(secondsUntil(10_001, 0, longest)).toBe(11);
    expect(secondsUntil(10_000, 0, longest)).toBe(10);
    expect(secondsUntil(0, 0, longest)).toBe(1);
    // SQS counts its 12 hours from the ReceiveMessage: the hold leaves the function's time and a margin.
    expect(secondsUntil(20 * 3_600_000, 0, longest)).toBe(43_200 - 30 - HOLD_MARGIN_SECONDS);
    expect(longestHoldSeconds({ functionTimeoutSeconds: 900, batchingWindowSeconds: 300 })).toBe(43_200 - 900 - 300 - HOLD_MARGIN_SECONDS);
  });
});

describe('a quiet-hours hold asks SQS for 43,200 s of visibility, and SQS refuses it (defect: 12 hours count from the receive)', () => {
  let localSqs: LocalSqs;
  beforeAll(async () => {
    localSqs = await startLocalSqs({ queueName: 'quiet-hold', visibilityTimeoutSeconds: 30, maxReceiveCount: 100 });
  });
  afterAll(async () => localSqs?.stop());

  it('a US marketing text with no time zone, received at 21:00 in New York, is held as long as SQS accepts, and SQS takes it', async () => {
    const client = localSqs.client();
    const nineInNewYork = Date.parse('2026-12-01T02:00:00Z');
    const event = offersText('evt-quiet-hold-limit', '+14155550184');
    await client.send(new SendMessageCommand({ QueueUrl: localSqs.queueUrl, MessageBody: JSON.stringify(event) }));
    const received = await client.send(
      new ReceiveMessageCommand({ QueueUrl: localSqs.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
    );
    const record = toSqsRecord(received.Messages![0]!, localSqs.queueArn, 'us-east-1');
    const held: number[] = [];
    const real = new SqsRecordDeferral(client, localSqs.queueUrl);
    const harness = new SenderHarness({
      ledger: db.ledger,
      clock: new ControlledClock(nineInNewYork),
      providers: world.providers,
      consent: world.consent,
      destinations: { sms: smsCountryTable(['US']) },
      longestHoldSeconds: longestHoldSeconds({ functionTimeoutSeconds: 30, batchingWindowSeconds: 0 }),
      deferral: { defer: async (handle, seconds) => (held.push(seconds), real.defer(handle, seconds)) },
    });

    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    // SQS took the hold (a refused one is only logged, and the record comes back after the queue's 30 s)...
    expect(harness.metrics.get(METRIC.RecordBackedOff)).toBe(1);
    expect(await queueDepth(client, localSqs.queueUrl)).toMatchObject({ visible: 0, inFlight: 1 });
    // ...for as long as it accepts from this receive: 08:00 in Honolulu is 16 hours away.
    expect(held).toEqual([longestHoldSeconds({ functionTimeoutSeconds: 30, batchingWindowSeconds: 0 })]);
    expect(textsTo('+14155550184')).toHaveLength(0);
  });
});
