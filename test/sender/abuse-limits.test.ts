import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import type { LimitStore } from '../../functions/core/policy/limit-store';
import { scopeCounts } from '../../functions/core/policy/message-limits';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { smsCountryTable } from '../../lib/sms-countries';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const limits = () => new DynamoDbLimitStore(db.client, db.tableName);

let numbers = 0;
/** A number of its own per test, in a block of its own. */
const freshNumber = () => `+1415${String(2_000_000 + (numbers += 1) * 1000).padStart(7, '0')}`;
const code = (eventId: string, phone: string, recipientId = `user-${phone}`): NotificationEvent =>
  loginCodeEvent({ eventId, recipients: [{ recipientId, phone, channels: ['sms'] }] });
const keyOf = (event: NotificationEvent) =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel: 'sms', templateId: event.templateId });

describe('limits on a real DynamoDB-compatible server', () => {
  it('N+1 concurrent distinct events for one number with limit N: exactly N sends and 1 SUPPRESSED', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits() });
    const phone = freshNumber();
    // otp allows 5 per 10 minutes per address: 6 codes at once, each a different event (and recipient id, so only the address binds).
    const events = Array.from({ length: 6 }, (_, i) => code(`evt-burst-${i}`, phone, `user-burst-${i}`));
    const responses = await Promise.all(events.map((event) => harness.invoke(sqsRecord(JSON.stringify(event)))));
    expect(responses.flatMap(failedIds)).toEqual([]);

    const calls = await harness.callsPerKey();
    expect(calls.size).toBe(5);
    expect([...calls.values()]).toEqual([1, 1, 1, 1, 1]);
    const states = await Promise.all(events.map(async (event) => (await db.ledger.get(keyOf(event)))?.state));
    expect(states.filter((s) => s === 'SENT')).toHaveLength(5);
    expect(states.filter((s) => s === 'SUPPRESSED')).toHaveLength(1);
    const suppressed = events.find((_, i) => states[i] === 'SUPPRESSED')!;
    expect(await db.ledger.get(keyOf(suppressed))).toMatchObject({
      suppressionReason: 'AddressLimit',
      failureReason: 'AddressLimit: class otp allows 5 per 10 min, 10 per 24 h per address',
    });
    expect(harness.metrics.byDimensions.get('Suppressed|-|otp|AddressLimit')).toBe(1);
  });

  it('the same event redelivered 10 times counts once', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits() });
    const phone = freshNumber();
    const event = code('evt-redelivered-10', phone);
    const body = JSON.stringify(event);
    for (let i = 0; i < 10; i += 1) expect(failedIds(await harness.invoke(sqsRecord(body, undefined, { receiveCount: i + 1 })))).toEqual([]);
    expect([...(await harness.callsPerKey()).values()]).toEqual([1]);

    const [address] = scopeCounts('otp', harness.classLimits('otp'), { ...event, ...event.recipients[0]!, channel: 'sms', address: phone }, harness.clock.now());
    const item = await DynamoDBDocumentClient.from(db.client).send(
      new GetCommand({ TableName: db.tableName, Key: { pk: address!.partition, sk: address!.sort }, ConsistentRead: true }),
    );
    expect((item.Item?.[address!.windows[0]!.attribute] as Set<Uint8Array>).size).toBe(1);
    // 4 more distinct codes fit (5 per 10 minutes); a fifth would not.
    for (let i = 0; i < 4; i += 1) await harness.invoke(sqsRecord(JSON.stringify(code(`evt-after-${phone}-${i}`, phone))));
    expect((await harness.callsPerKey()).size).toBe(5);
  });

  it('a takeover after an unknown outcome (the otp resend) finds its message counted, in the windows of its first claim', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits() });
    const phone = freshNumber();
    // Fill the address's window with 4 codes, then a fifth whose worker dies after counting.
    for (let i = 0; i < 4; i += 1) await harness.invoke(sqsRecord(JSON.stringify(code(`evt-fill-${phone}-${i}`, phone))));
    const dying = code(`evt-dies-${phone}`, phone);
    let sends = 0;
    const dyingHarness = new SenderHarness({
      ledger: db.ledger,
      limitStore: limits(),
      clock: harness.clock,
      wrapProvider: (outbox) => ({
        ...outbox,
        send: async () => {
          sends += 1;
          return { kind: 'ambiguous', reason: 'TimeoutError: lost answer' };
        },
      }),
    });
    expect(failedIds(await dyingHarness.invoke(sqsRecord(JSON.stringify(dying))))).toHaveLength(1);
    expect(sends).toBe(1);
    // A sixth code is refused: the dying one holds the fifth slot.
    const sixth = code(`evt-sixth-${phone}`, phone);
    await harness.invoke(sqsRecord(JSON.stringify(sixth)));
    expect((await db.ledger.get(keyOf(sixth)))?.state).toBe('SUPPRESSED');
    // The redelivery (released ambiguous, otp resends) finds itself counted, even 11 minutes later.
    harness.clock.advance(CLAIM_TIMEOUT_MS + 11 * 60_000);
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(dying), undefined, { receiveCount: 2 })))).toEqual([]);
    expect((await db.ledger.get(keyOf(dying)))?.state).toBe('SENT');
    // Counted at its first claim: the 10-minute window of now holds nothing of it.
    const [now] = scopeCounts('otp', harness.classLimits('otp'), { ...dying, ...dying.recipients[0]!, channel: 'sms', address: phone }, harness.clock.now());
    const item = await DynamoDBDocumentClient.from(db.client).send(
      new GetCommand({ TableName: db.tableName, Key: { pk: now!.partition, sk: now!.sort }, ConsistentRead: true }),
    );
    expect(item.Item?.[now!.windows[0]!.attribute]).toBeUndefined();
  });

  it('a SUPPRESSED message is never sent; its redelivery acknowledges it', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits() });
    const phone = freshNumber();
    for (let i = 0; i < 5; i += 1) await harness.invoke(sqsRecord(JSON.stringify(code(`evt-s-${phone}-${i}`, phone))));
    const over = code(`evt-over-${phone}`, phone);
    for (let i = 0; i < 3; i += 1) expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(over), undefined, { receiveCount: i + 1 })))).toEqual([]);
    expect((await harness.callsPerKey()).has(keyOf(over))).toBe(false);
    expect(harness.metrics.get(METRIC.Suppressed)).toBe(1);
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(2);
  });

  it('the messages of one event never count against each other: its e-mail and SMS to one person take one slot', async () => {
    const harness = new SenderHarness({
      ledger: db.ledger,
      limitStore: limits(),
      messageClassesJson: JSON.stringify([{ name: 'otp', onAmbiguous: 'resend', limits: [{ scope: 'recipient', max: 1, windowSeconds: 600 }] }]),
    });
    const event = loginCodeEvent({ eventId: 'evt-two-channels', recipients: [{ recipientId: 'user-two', phone: freshNumber(), email: 'two@shop.example', channels: ['sms', 'email'] }] });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect((await harness.callsPerKey()).size).toBe(2);
    await harness.invoke(sqsRecord(JSON.stringify({ ...event, eventId: 'evt-two-channels-again' })));
    expect((await harness.callsPerKey()).size).toBe(2);
    expect(harness.metrics.byDimensions.get('Suppressed|-|otp|RecipientLimit')).toBe(2);
  });

  it('the number block: the 21st code within an hour to one block is suppressed, whatever the numbers', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits() });
    const block = freshNumber().slice(0, -3);
    for (let i = 0; i < 21; i += 1) await harness.invoke(sqsRecord(JSON.stringify(code(`evt-block-${block}-${i}`, `${block}${String(i).padStart(3, '0')}`))));
    expect((await harness.callsPerKey()).size).toBe(20);
    expect(harness.metrics.byDimensions.get('Suppressed|-|otp|NumberBlockLimit')).toBe(1);
  });

  it('a class without limits writes no counter', async () => {
    const writes: string[] = [];
    const spy: LimitStore = { count: async (counter) => (writes.push(counter.partition), 'counted') };
    const harness = new SenderHarness({
      ledger: db.ledger,
      limitStore: spy,
      messageClassesJson: JSON.stringify([{ name: 'transactional', onAmbiguous: 'lookup', limits: [] }]),
    });
    await harness.invoke(sqsRecord(JSON.stringify(orderShippedEvent({ eventId: 'evt-unlimited' }))));
    expect((await harness.callsPerKey()).size).toBe(4);
    expect(writes).toEqual([]);
  });

  it('a failed limit store neither sends nor suppresses: the claim is handed back and the record backs off', async () => {
    const deferred: number[] = [];
    let fail = true;
    const flaky: LimitStore = {
      count: async (counter, digest) => {
        if (fail) throw Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });
        return limits().count(counter, digest);
      },
    };
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: flaky, deferral: { defer: async (_h, seconds) => void deferred.push(seconds) } });
    const event = code('evt-store-down', freshNumber());
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toHaveLength(1);
    expect((await harness.callsPerKey()).size).toBe(0);
    expect(deferred).toHaveLength(1);
    expect(harness.metrics.get(METRIC.LimitStoreError)).toBe(1);
    const row = await db.ledger.get(keyOf(event));
    expect(row).toMatchObject({ state: 'PENDING', lastRelease: 'transient', failureReason: 'LimitStoreUnavailable: ProvisionedThroughputExceededException' });
    expect(row!.leaseExpiresAt).toBe(harness.clock.now());
    fail = false;
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event), undefined, { receiveCount: 2 })))).toEqual([]);
    expect([...(await harness.callsPerKey()).values()]).toEqual([1]);
  });
});

describe('destinations', () => {
  it('an SMS to a country outside the list is SUPPRESSED CountryNotAllowed, and never sent; one inside is sent', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, limitStore: limits(), destinations: { sms: smsCountryTable(['US']) } });
    const jamaica = code('evt-jm', '+18762345678');
    const premium = code('evt-882', '+882123456789');
    const us = code('evt-us', '+14155550199');
    for (const event of [jamaica, premium, us]) expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect([...(await harness.callsPerKey()).keys()]).toEqual([keyOf(us)]);
    expect(await db.ledger.get(keyOf(jamaica))).toMatchObject({
      state: 'SUPPRESSED',
      suppressionReason: 'CountryNotAllowed',
      failureReason: 'CountryNotAllowed: the number is in none of the SMS countries (US)',
    });
    expect(await db.ledger.get(keyOf(premium))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'CountryNotAllowed' });
    expect(harness.metrics.byDimensions.get('Suppressed|-|otp|CountryNotAllowed')).toBe(2);
  });

  it('a push to an endpoint of another platform application is SUPPRESSED PushApplicationNotAllowed', async () => {
    const harness = new SenderHarness({
      ledger: db.ledger,
      destinations: { pushApplicationArns: ['arn:aws:sns:us-east-1:123456789012:app/GCM/shop'] },
    });
    const event = (eventId: string, app: string) =>
      orderShippedEvent({
        eventId,
        recipients: [{ recipientId: 'buyer-p', pushEndpointArn: `arn:aws:sns:us-east-1:123456789012:endpoint/GCM/${app}/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab`, channels: ['push'] }],
      });
    await harness.invoke(sqsRecord(JSON.stringify(event('evt-push-ours', 'shop'))));
    // `shop-app` starts with `shop`: only the whole application name matches.
    await harness.invoke(sqsRecord(JSON.stringify(event('evt-push-other', 'shop-app'))));
    const key = (eventId: string) => idempotencyKey({ eventId, recipientId: 'buyer-p', channel: 'push', templateId: 'order-shipped' });
    expect([...(await harness.callsPerKey()).keys()]).toEqual([key('evt-push-ours')]);
    expect(await db.ledger.get(key('evt-push-other'))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'PushApplicationNotAllowed' });
  });
});


