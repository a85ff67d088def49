import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsRecordDeferral } from '../../functions/adapters/sqs-record-deferral';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import { METRIC } from '../../functions/core/observability/metric-names';
import { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { DEFAULT_BACKOFF } from '../../functions/core/queue/visibility-backoff';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const QUEUE_URL = 'http://127.0.0.1:1/000000000000/notifications';
const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const sqsMock = mockClient(sqs);
afterEach(() => sqsMock.reset());

/** A provider that refuses every send with one transient cause (certainly not sent). */
function refusing(outcome: Extract<DeliveryOutcome, { kind: 'transient' }>): DeliveryProvider {
  return { send: async () => outcome };
}
const throttled = refusing({ kind: 'transient', cause: 'throttled', reason: 'Throttling: Rate exceeded' });
const quotaSpent = refusing({ kind: 'transient', cause: 'quota-exhausted', reason: 'ThrottlingException: Daily message quota exceeded.' });

function receivedTimes(body: string, receiveCount: number) {
  const record = sqsRecord(body);
  return { ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(receiveCount) } };
}

describe('throttling is backpressure: the record comes back later, never FAILED', () => {
  it('a throttled record is made invisible for its jittered exponential step (exact ChangeMessageVisibility)', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    const logged: { message: string; attributes?: Record<string, unknown> }[] = [];
    const info = (message: string, attributes?: Record<string, unknown>) => void logged.push({ message, attributes });
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: throttled, sms: throttled, push: throttled },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
      random: () => 0.5,
      log: { info, warn: info, error: info },
    });
    const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId: 'evt-bp-throttled' })), 4);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);

    // 4th receive: step 10 x 2^3 = 80 s; equal jitter at 0.5 -> 40 + 20 = 60 s.
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, ReceiptHandle: record.receiptHandle, VisibilityTimeout: 60 },
    ]);
    expect(harness.metrics.get(METRIC.ProviderThrottled)).toBe(1);
    expect(harness.metrics.get(METRIC.RecordBackedOff)).toBe(1);
    expect(harness.metrics.get(METRIC.RecordRetried)).toBe(1);
    // The backoff's line says which messages wait and why, as the line of a record handed back without one does.
    expect(logged.filter((l) => l.message.startsWith('Record backed off')).map((l) => l.attributes)).toEqual([
      { sqsMessageId: record.messageId, receiveCount: 4, seconds: 60, kind: 'throttle', reason: expect.stringMatching(/^1 of 1 messages of event evt-bp-throttled not settled \(transient-failure:throttled\)$/) },
    ]);
    const key = idempotencyKey({ eventId: 'evt-bp-throttled', recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
  });

  it("a throttling answer slows a yielding (bulk lane's) governor on that channel; other refusals do not", async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    const yielding = { floor: 0.125, recoveryMs: 60_000, holdMs: 0 };
    const governor = new SendRateGovernor({ email: 10, sms: 10 }, undefined, yielding, () => 0);
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: quotaSpent, sms: throttled, push: throttled },
      governor,
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId: 'evt-bp-yield' })), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(governor.factorAt('sms', Date.now())).toBeLessThan(0.51);
    expect(governor.factorAt('email', Date.now())).toBe(1);

    const orders = new SenderHarness({
      ledger: db.ledger,
      providers: { email: quotaSpent, sms: quotaSpent, push: quotaSpent },
      governor,
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    const order = receivedTimes(JSON.stringify(orderShippedEvent({ eventId: 'evt-bp-yield-quota' })), 1);
    expect(failedIds(await orders.invoke(order))).toEqual([order.messageId]);
    // A spent daily quota is not the urgent lane's sends: the e-mail rate stays.
    expect(governor.factorAt('email', Date.now())).toBe(1);
  });

  it('in the urgent lane a throttled send is made again in place, claim held: sent in the same invocation, nothing backed off', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    let calls = 0;
    const throttledOnce: DeliveryProvider = {
      send: async () => (++calls === 1 ? { kind: 'transient', cause: 'throttled', reason: 'Throttling: Rate exceeded' } : { kind: 'sent', providerMessageId: 'sms-1' }),
    };
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: throttledOnce, sms: throttledOnce, push: throttledOnce },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
      throttleRetryPausesMs: [10, 20],
    });
    const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId: 'evt-bp-in-place' })), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([]);
    expect(calls).toBe(2);
    const key = idempotencyKey({ eventId: 'evt-bp-in-place', recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', providerMessageId: 'sms-1', attempts: 1 });
    expect(harness.metrics.get(METRIC.ProviderThrottled)).toBe(1);
    expect(harness.metrics.get(METRIC.TransientRetry)).toBe(0);
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  /** An urgent-lane sender whose provider throttles every send, run on one record: what it called and left. */
  async function alwaysThrottled(eventId: string, throttleRetryPausesMs: readonly number[]) {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    let calls = 0;
    const counting: DeliveryProvider = { send: async () => (calls++, { kind: 'transient', cause: 'throttled', reason: 'Throttling: Rate exceeded' }) };
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: counting, sms: counting, push: counting },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
      throttleRetryPausesMs,
    });
    const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId })), 1);
    const failed = failedIds(await harness.invoke(record));
    const row = await db.ledger.get(idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }));
    return { failed, record, calls, row, metrics: harness.metrics, backoffs: sqsMock.commandCalls(ChangeMessageVisibilityCommand).length };
  }

  it.each([
    ['after the last in-place pause it backs off as any throttled record', [10, 20], 3],
    // The second pause (an hour) outlasts any invocation.
    ['a pause the invocation has no time for is not waited: the claim is released and the record backed off instead', [10, 3_600_000], 2],
    ['without pauses (the bulk lane) it backs off at once', [], 1],
  ] as const)('%s', async (_what, pauses, expectedCalls) => {
    const run = await alwaysThrottled(`evt-bp-spent-${pauses.length}-${pauses.at(-1) ?? 0}`, pauses);
    expect(run.failed).toEqual([run.record.messageId]);
    expect(run.calls).toBe(expectedCalls);
    expect(run.metrics.get(METRIC.ProviderThrottled)).toBe(expectedCalls);
    expect(run.backoffs).toBe(1);
    expect(run.row).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
  });

  // Pauses are for a provider's second with no room; a spent quota, a configuration fault or an outage does not
  // end in 20 ms, and a send again in place only holds the claim and the invocation longer.
  it.each(['quota-exhausted', 'configuration', 'unavailable', 'unrecognised'] as const)(
    'in the urgent lane a %s refusal is not sent again in place: one call, the record backed off',
    async (cause) => {
      sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
      let calls = 0;
      const refusingOnce: DeliveryProvider = {
        send: async () => (++calls === 1 ? { kind: 'transient', cause, reason: `${cause} refusal` } : { kind: 'sent', providerMessageId: 'sms-1' }),
      };
      const harness = new SenderHarness({
        ledger: db.ledger,
        providers: { email: refusingOnce, sms: refusingOnce, push: refusingOnce },
        deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
        throttleRetryPausesMs: [10, 20],
      });
      const eventId = `evt-bp-not-in-place-${cause}`;
      const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId })), 1);
      expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
      expect(calls).toBe(1);
      expect(harness.metrics.get(METRIC.ProviderThrottled)).toBe(0);
      const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
      expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    },
  );

  it('a spent daily quota pauses the record for the longest step; nothing is marked FAILED', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: quotaSpent, sms: quotaSpent, push: quotaSpent },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    const event = orderShippedEvent({ eventId: 'evt-bp-quota' });
    const record = receivedTimes(JSON.stringify(event), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input.VisibilityTimeout).toBe(DEFAULT_BACKOFF.capSeconds);
    expect(harness.metrics.get(METRIC.ProviderQuotaExhausted)).toBe(4);
    expect(harness.metrics.get(METRIC.PermanentFailure)).toBe(0);
  });

  it('a message with no send slot before the invocation ends is released and deferred, not sent', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    // One e-mail per 100 s: the second e-mail's slot is past this invocation's end.
    const harness = new SenderHarness({
      ledger: db.ledger,
      governor: new SendRateGovernor({ email: 0.01 }),
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    const event = orderShippedEvent({ eventId: 'evt-bp-rate', recipients: orderShippedEvent().recipients.map((r) => ({ ...r, channels: ['email'] as const })) });
    const record = receivedTimes(JSON.stringify(event), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect((await harness.outbox()).length).toBe(1);
    expect(harness.metrics.get(METRIC.RateLimitedDeferral)).toBe(1);
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(1);
  });

  it('a record that also waits on another worker\'s claim keeps the queue visibility timeout (no backoff)', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
    const event = orderShippedEvent({ eventId: 'evt-bp-mixed' });
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: throttled, sms: throttled, push: throttled },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    // Another worker holds the seller's e-mail right now.
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' });
    const now = harness.clock.now();
    await db.ledger.claim(
      newClaimRow({ subject: { key, eventId: event.eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped', messageClass: 'transactional', occurredAt: event.occurredAt }, ownerToken: 'other-worker', nowMs: now, timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS } }),
      now,
    );
    const record = receivedTimes(JSON.stringify(event), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  it('a failed ChangeMessageVisibility still leaves the record for redelivery', async () => {
    sqsMock.on(ChangeMessageVisibilityCommand).rejects(new Error('ReceiptHandleIsInvalid'));
    const harness = new SenderHarness({
      ledger: db.ledger,
      providers: { email: throttled, sms: throttled, push: throttled },
      deferral: new SqsRecordDeferral(sqs, QUEUE_URL),
    });
    const record = receivedTimes(JSON.stringify(loginCodeEvent({ eventId: 'evt-bp-visibility-fails' })), 1);
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(harness.metrics.get(METRIC.RecordBackedOff)).toBe(0);
  });
});
