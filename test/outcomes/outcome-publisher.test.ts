import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBridgeOutcomeBus } from '../../functions/adapters/eventbridge-outcome-bus';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { OUTCOME_DETAIL_TYPE, OUTCOME_EVENT_SOURCE, type OutcomeEventDetail } from '../../functions/core/outcome/outcome-event';
import { createOutcomePublisher } from '../../functions/outcomes/create-outcome-publisher';
import { startLocalEventBridge, type LocalEventBridge, type LocalEventBridgeOptions } from '../../local/aws/local-eventbridge';
import { expectOutcomeEventSchema } from '../support/outcome-event-schema';
import { batchOf, claimRow, keyOf, rowWrite, sentRow, streamRecord, T0 } from './stream-records';

const context = {} as Context;
let bus: LocalEventBridge | undefined;
afterEach(async () => {
  // Every event a test put on the bus matches the committed schema.
  expectOutcomeEventSchema(bus?.events().map((e) => e.detail) ?? []);
  await bus?.stop();
  bus = undefined;
});

/** The real publisher, the real EventBridge client, the local EventBridge on loopback. */
async function rig(options: LocalEventBridgeOptions = {}) {
  bus = await startLocalEventBridge(options);
  const metrics = new InMemoryMetrics();
  const client = new EventBridgeClient({ endpoint: bus.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const publisher = createOutcomePublisher({
    bus: new EventBridgeOutcomeBus(client, 'notifier-outcomes'),
    metrics,
    log: silentLog,
    retryPausesMs: [1, 1, 1],
  });
  const local = bus;
  return { publisher, metrics, bus: local, details: () => local.events().map((e) => e.detail as OutcomeEventDetail) };
}

describe('the outcome publisher', () => {
  it('puts one event per settled row on the bus, with the stack\'s source and detail type, and acknowledges the batch', async () => {
    const r = await rig();
    const key = keyOf(1);
    const answer = await r.publisher(batchOf([rowWrite(undefined, claimRow(key)), rowWrite(claimRow(key), sentRow(key))]), context);
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(r.bus.events()).toHaveLength(1);
    expect(r.bus.events()[0]).toMatchObject({ source: OUTCOME_EVENT_SOURCE, detailType: OUTCOME_DETAIL_TYPE, time: new Date(T0 + 100).toISOString() });
    expect(r.details()[0]).toMatchObject({ key, state: 'SENT', providerMessageId: `ses-${key.slice(0, 6)}` });
    expect(r.metrics.get('OutcomePublished')).toBe(1);
  });

  it('puts nothing for claims, limit counters, consent records and removals, and makes no call', async () => {
    const r = await rig();
    const key = keyOf(2);
    const counter = { pk: 'limit#address#abc', sk: 'limit', windows: { w: 1 } };
    const consent = { pk: 'consent#0123456789abcdef0123456789abcdef', sk: 'consent', unsubscribed: true };
    const answer = await r.publisher(
      batchOf([rowWrite(undefined, claimRow(key)), streamRecord(undefined, counter), streamRecord(undefined, consent), rowWrite(sentRow(key), undefined)]),
      context,
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(r.bus.calls()).toBe(0);
  });

  it('reads a row whose old image holds a packed message (base64 text in a Lambda event)', async () => {
    const r = await rig();
    const key = keyOf(3);
    const record = rowWrite(claimRow(key), sentRow(key));
    record.dynamodb!.OldImage!.request = { B: Buffer.from('packed').toString('base64') };
    expect(await r.publisher(batchOf([record]), context)).toEqual({ batchItemFailures: [] });
    expect(r.details()).toHaveLength(1);
  });

  it('sends 25 events as PutEvents calls of at most 10 entries', async () => {
    const r = await rig();
    const records = Array.from({ length: 25 }, (_, i) => rowWrite(claimRow(keyOf(100 + i)), sentRow(keyOf(100 + i))));
    await r.publisher(batchOf(records), context);
    expect(r.bus.calls()).toBe(3);
    expect(new Set(r.details().map((d) => d.key)).size).toBe(25);
  });

  it('sends again the entries PutEvents failed, until the bus took them: none lost', async () => {
    let failures = 0;
    const r = await rig({
      // Every other entry fails on its first two tries.
      entryFate: (entry) => {
        const detail = JSON.parse(entry.Detail ?? '{}') as OutcomeEventDetail;
        const seen = (tries.get(detail.key) ?? 0) + 1;
        tries.set(detail.key, seen);
        if (Number.parseInt(detail.key, 16) % 2 === 0 && seen <= 2) {
          failures += 1;
          return seen === 1 ? 'ThrottlingException' : 'InternalFailure';
        }
        return undefined;
      },
    });
    const tries = new Map<string, number>();
    const keys = Array.from({ length: 12 }, (_, i) => keyOf(200 + i));
    const answer = await r.publisher(batchOf(keys.map((k) => rowWrite(claimRow(k), sentRow(k)))), context);
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(new Set(r.details().map((d) => d.key))).toEqual(new Set(keys));
    expect(r.details()).toHaveLength(12);
    expect(failures).toBe(12);
    expect(r.metrics.get('OutcomeEntryFailed')).toBe(12);
  });

  it('hands back the first record whose event the bus never took; the events before it are on the bus', async () => {
    const refused = keyOf(302);
    const r = await rig({ entryFate: (entry) => ((JSON.parse(entry.Detail ?? '{}') as OutcomeEventDetail).key === refused ? 'InternalFailure' : undefined) });
    const records = [keyOf(301), refused, keyOf(303)].map((k) => rowWrite(claimRow(k), sentRow(k)));
    const answer = await r.publisher(batchOf(records), context);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect(r.details().map((d) => d.key)).toEqual([keyOf(301), keyOf(303)]);
    expect(r.metrics.get('OutcomeEntryFailed')).toBe(4);
    expect(r.metrics.get('OutcomeRecordRetried')).toBe(2);
  });

  it('a throttled PutEvents call is made again: its events reach the bus', async () => {
    const r = await rig({ callFate: (_, call) => (call < 4 ? 'throttle' : 'answer') });
    const key = keyOf(400);
    expect(await r.publisher(batchOf([rowWrite(claimRow(key), sentRow(key))]), context)).toEqual({ batchItemFailures: [] });
    expect(r.details().map((d) => d.key)).toEqual([key]);
  });

  it('hands back the first record that is a message\'s row but no valid one, after publishing the records before it', async () => {
    const r = await rig();
    const good = rowWrite(claimRow(keyOf(501)), sentRow(keyOf(501)));
    const bad = rowWrite(claimRow(keyOf(502)), sentRow(keyOf(502)));
    bad.dynamodb!.NewImage!.state = { S: 'SHIPPED' };
    const after = rowWrite(claimRow(keyOf(503)), sentRow(keyOf(503)));
    const answer = await r.publisher(batchOf([good, bad, after]), context);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: bad.dynamodb!.SequenceNumber }] });
    expect(r.details().map((d) => d.key)).toEqual([keyOf(501)]);
    expect(r.metrics.get('OutcomeRecordInvalid')).toBe(1);
  });
});
