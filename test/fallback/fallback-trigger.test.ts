import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsFallbackQueue } from '../../functions/adapters/sqs-fallback-queue';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { createFallbackTrigger } from '../../functions/fallback/create-fallback-trigger';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { batchOf, claimRow, keyOf, rowWrite, sentRow, T0 } from '../outcomes/stream-records';

let sqs: LocalSqs;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => sqs?.stop());

const FALLBACK_KEY = 'f'.repeat(64);
const withPlan = { fallbackKey: FALLBACK_KEY, fallbackPlan: Uint8Array.of(1, 2, 3) };

/** The real trigger and SQS client on the local queue; the fallback rows it may read are given. */
function rig(fallbackRows: ReadonlyMap<string, LedgerRow> = new Map(), queueUrl = sqs.queueUrl, nowMs = T0 + 1_000) {
  const metrics = new InMemoryMetrics();
  const client = sqs.client();
  const trigger = createFallbackTrigger({
    queue: new SqsFallbackQueue(client, { urgent: queueUrl, bulk: queueUrl }),
    ledger: { get: async (key) => fallbackRows.get(key) },
    messageClasses: buildMessageClassRegistry(),
    clock: () => nowMs,
    metrics,
    log: silentLog,
  });
  const received = async () => (await client.send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }))).Messages ?? [];
  return { trigger, metrics, received };
}

describe('the fallback trigger', () => {
  it('asks for the fallback of a primary the provider refused for good, naming only its key', async () => {
    const r = rig();
    const key = keyOf(1);
    const failed: LedgerRow = { ...sentRow(key, withPlan), state: 'FAILED', failureReason: 'EndpointDisabledException: Endpoint is disabled' };
    const record = rowWrite(claimRow(key, withPlan), failed);
    // In a Lambda event a binary attribute is base64 text: the plan is never read from the stream.
    record.dynamodb!.NewImage!.fallbackPlan = { B: Buffer.from('packed').toString('base64') };
    expect(await r.trigger(batchOf([record]), {} as never)).toEqual({ batchItemFailures: [] });
    const messages = await r.received();
    expect(messages.map((m) => m.Body)).toEqual([`{"notifierFallback":1,"primaryKey":"${key}"}`]);
    expect(r.metrics.get('FallbackRequested')).toBe(1);
  });

  it('asks nothing for a row without a next channel, a claim, or a sent transactional message', async () => {
    const r = rig();
    const key = keyOf(2);
    await r.trigger(batchOf([rowWrite(undefined, claimRow(key, withPlan)), rowWrite(claimRow(key), { ...sentRow(key), state: 'FAILED', failureReason: 'InvalidAddress: x' }), rowWrite(claimRow(key, withPlan), sentRow(key, withPlan))]), {} as never);
    expect(await r.received()).toEqual([]);
  });

  it('counts FallbackAfterDelivered when the provider proves a primary delivered whose fallback went out', async () => {
    const key = keyOf(3);
    const fallbackSent: LedgerRow = { ...sentRow(FALLBACK_KEY), replaces: key };
    const r = rig(new Map([[FALLBACK_KEY, fallbackSent]]));
    const sent = sentRow(key, { ...withPlan, messageClass: 'otp' });
    await r.trigger(batchOf([rowWrite(sent, { ...sent, deliveryStatus: 'Delivery', deliveryStatusAt: T0 + 500 })]), {} as never);
    expect(r.metrics.get('FallbackAfterDelivered')).toBe(1);
  });

  it('counts nothing when the primary is delivered and its fallback never went', async () => {
    const key = keyOf(4);
    const r = rig();
    const sent = sentRow(key, withPlan);
    await r.trigger(batchOf([rowWrite(sent, { ...sent, deliveryStatus: 'Delivery', deliveryStatusAt: T0 + 500 })]), {} as never);
    expect(r.metrics.get('FallbackAfterDelivered')).toBe(0);
  });

  it('hands a record back to the mapping (its sequence number) when the queue does not take its request, and every later one with it', async () => {
    const r = rig(new Map(), `${sqs.queueUrl}-gone`);
    const key = keyOf(5);
    const failed: LedgerRow = { ...sentRow(key, withPlan), state: 'FAILED', failureReason: 'EndpointDisabledException: Endpoint is disabled' };
    const records = [rowWrite(claimRow(key, withPlan), failed), rowWrite(claimRow(keyOf(6), withPlan), { ...failed, key: keyOf(6) })];
    const answer = await r.trigger(batchOf(records), {} as never);
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }]);
    expect(r.metrics.get('FallbackRecordRetried')).toBe(2);
  });

  it('asks at the end of an otp message\'s window, by SQS\'s delay, for a push sent without evidence', async () => {
    const r = rig();
    const key = keyOf(7);
    const sent = sentRow(key, { ...withPlan, messageClass: 'otp', channel: 'push' });
    await r.trigger(batchOf([rowWrite(claimRow(key, withPlan), sent)]), {} as never);
    // Held back by SQS (120 s from the send, 119 s from now): nothing visible yet, but asked.
    expect(await r.received()).toEqual([]);
    expect(r.metrics.get('FallbackRequested')).toBe(1);
  });
});

describe('the fallback trigger\'s filter patterns', () => {
  it('let through a settling write of a row that names a next channel, and nothing of a row without one', async () => {
    const { FALLBACK_STREAM_FILTERS } = await import('../../lib/fallback-stream-filter');
    const { matchesAnyFilter } = await import('../../local/aws/stream-filter-match');
    const key = keyOf(9);
    const failed: LedgerRow = { ...sentRow(key), state: 'FAILED', failureReason: 'EndpointDisabledException: x' };
    expect(matchesAnyFilter(FALLBACK_STREAM_FILTERS, rowWrite(claimRow(key, withPlan), { ...failed, ...withPlan }))).toBe(true);
    expect(matchesAnyFilter(FALLBACK_STREAM_FILTERS, rowWrite(claimRow(key), failed))).toBe(false);
    // A claim of a row with a plan is no settling: not let through.
    expect(matchesAnyFilter(FALLBACK_STREAM_FILTERS, rowWrite(undefined, claimRow(key, withPlan)))).toBe(false);
  });
});
