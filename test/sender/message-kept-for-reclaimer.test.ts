import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ledgerRowView } from '../../local/ledger-render';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { RenderedMessage } from '../../functions/core/templates/rendered-message';
import type { RedeliveryPolicy } from '../../functions/core/ledger/stale-claim-discovery';
import { buildTemplateRegistry } from '../../functions/core/template-checks/template-registry';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { planMessages } from '../../functions/delivery/message-plan';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import type { TemplateRegistry } from '../../functions/core/templates/templates';
import { orderConfirmation } from '../../bench/fixtures/order-confirmation';
import { mulberry32 } from '../../local/prng';
import { deliver, FRESH_CLAIM } from '../../functions/delivery/deliver-message';
import { claimOf } from '../../functions/core/ledger/ledger-decision';
import { ControlledClock } from '../support/controlled-clock';
import { testDeliveryContext } from '../support/delivery-context';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { deadClaimRow, ReclaimerHarness } from '../reclaimer/reclaimer-harness';

const db = useTestLedger();
const DAY = 86_400_000;
const POLICY: RedeliveryPolicy = { maxReceiveCount: 5, retentionMs: 4 * DAY, longestRedeliveryGapMs: 180_000 };
const large = orderConfirmation('large');

/** Every ledger write's operation and the units the server says it consumed, in order. */
function recordWriteUnits(client: DynamoDBClient): Array<{ operation: string; units: number }> {
  const writes: Array<{ operation: string; units: number }> = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const operation = String(context.commandName).replace(/Command$/, '');
      if (operation === 'Put' || operation === 'Update' || operation === 'PutItem' || operation === 'UpdateItem') input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const units = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits;
      if (units !== undefined) writes.push({ operation: operation.startsWith('Put') ? 'PutItem' : 'UpdateItem', units });
      return result;
    },
    { step: 'initialize', name: 'writeUnitsOfThisFile', override: true },
  );
  return writes;
}

/** The message the sender renders for `event`, as planning gives it to the provider. */
function renderedOf(event: NotificationEvent, templates: TemplateRegistry): RenderedMessage {
  const [plan] = planMessages(event, buildMessageClassRegistry().get(event.messageClass)!, templates);
  if (!plan?.prepared.ok) throw new Error('the fixture must render');
  return plan.prepared.request.message;
}

function keyOf(event: NotificationEvent): string {
  const recipient = event.recipients[0]!;
  return idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel: 'email', templateId: event.templateId });
}

/** A reclaimer sharing the sender's clock and outbox, recording each message its provider is handed. */
function reclaimerBeside(sender: SenderHarness): { reclaimer: ReclaimerHarness; handed: RenderedMessage[] } {
  const handed: RenderedMessage[] = [];
  const capture = (provider: DeliveryProvider): DeliveryProvider => ({
    send: (request, signal) => {
      handed.push(request.message);
      return provider.send(request, signal);
    },
  });
  return { reclaimer: new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile, wrapProvider: capture }), handed };
}

/** Byte for byte: every part's UTF-8 bytes equal, and no part added or dropped. */
function expectSameBytes(actual: RenderedMessage | undefined, expected: RenderedMessage): void {
  expect(actual).toBeDefined();
  const parts = (m: RenderedMessage) =>
    Object.entries(m)
      .map(([part, value]) => [part, Buffer.from(String(value), 'utf8').toString('hex')])
      .sort(([a], [b]) => String(a).localeCompare(String(b)));
  expect(parts(actual!)).toEqual(parts(expected));
}

/**
 * The message's first receive dies right after its claim (an early receive: no stored message), and the receive
 * numbered `receiveCount` dies right after taking that claim over. The second receive's sender.
 */
async function diesAfterTakeover(event: NotificationEvent, receiveCount: number): Promise<SenderHarness> {
  const first = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY, templates: large.templates });
  const sentAtMs = first.clock.now();
  expect(await invokeOrKill(first.invoke(sqsRecord(JSON.stringify(event), undefined, { receiveCount: 1, sentAtMs })))).toBe('killed');
  expect((await db.ledger.get(keyOf(event)))?.request).toBeUndefined();

  const second = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'takeOver', 'hang'), redelivery: POLICY, clock: first.clock, templates: large.templates });
  first.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
  expect(await invokeOrKill(second.invoke(sqsRecord(JSON.stringify(event), undefined, { receiveCount, sentAtMs })))).toBe('killed');
  return second;
}

describe('a first delivery writes no rendered content', () => {
  it('the claim and the outcome of a 90 KB HTML e-mail consume one write unit each', async () => {
    const writes = recordWriteUnits(db.client);
    const event = large.event({ eventId: 'evt-wu-90kb-first' });
    expect(Buffer.byteLength(JSON.stringify(renderedOf(event, large.templates)))).toBeGreaterThan(90_000);
    const harness = new SenderHarness({ ledger: db.ledger, redelivery: POLICY, templates: large.templates });
    const before = writes.length;
    const record = sqsRecord(JSON.stringify(event), undefined, { receiveCount: 1, sentAtMs: harness.clock.now() - 1_000 });
    expect(failedIds(await harness.invoke(record))).toEqual([]);

    expect(writes.slice(before)).toEqual([
      { operation: 'PutItem', units: 1 },
      { operation: 'UpdateItem', units: 1 },
    ]);
    expect((await harness.callsPerKey()).get(keyOf(event))).toBe(1);
    expect(await db.ledger.get(keyOf(event))).toMatchObject({ state: 'SENT' });
  });

  it('an early receive taking over a dead claim keeps nothing either: its message comes back with the queue', async () => {
    const event = large.event({ eventId: 'evt-early-takeover' });
    await diesAfterTakeover(event, 2);
    const row = await db.ledger.get(keyOf(event));
    expect(row).toMatchObject({ state: 'PENDING', claimVersion: 2 });
    expect(row?.request).toBeUndefined();
    expect(row?.pendingShard).toBeUndefined();
  });
});

describe('a claim the reclaimer may have to finish keeps its message packed, and the reclaimer sends it byte for byte', () => {
  it('on the last receive: the claim keeps it packed, the worker dies, and the reclaimer sends the message first rendered', async () => {
    const writes = recordWriteUnits(db.client);
    const event = large.event({ eventId: 'evt-last-receive-dies', messageClass: 'otp' });
    const sender = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY, templates: large.templates });
    const before = writes.length;
    const last = sqsRecord(JSON.stringify(event), undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs: sender.clock.now() });
    expect(await invokeOrKill(sender.invoke(last))).toBe('killed');
    const claimed = await db.ledger.get(keyOf(event));
    expect(claimed?.request).toBeInstanceOf(Uint8Array);
    expect(claimed?.pendingShard).toBeDefined();
    // The plain message made this claim 89 units (the layout before packing); packed it is 7.
    expect(writes.slice(before)).toEqual([{ operation: 'PutItem', units: 7 }]);
    // Support still sees the masked address of a claim that keeps its message.
    expect(ledgerRowView(claimed!).address).toBe('b***@example.com');

    const { reclaimer, handed } = reclaimerBeside(sender);
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect(handed).toHaveLength(1);
    expectSameBytes(handed[0], renderedOf(event, large.templates));
    const settled = await db.ledger.get(keyOf(event));
    expect(settled).toMatchObject({ state: 'SENT' });
    expect(settled?.request).toBeUndefined();
  });

  it('a delivery told nothing of the queue keeps it too (the conservative default: every claim is discoverable)', async () => {
    const event = large.event({ eventId: 'evt-queue-unknown' });
    const [plan] = planMessages(event, buildMessageClassRegistry().get('transactional')!, large.templates);
    const clock = new ControlledClock();
    const ctx = testDeliveryContext(crashAfterFirst(db.ledger, 'claim', 'hang'), { send: async () => ({ kind: 'sent', providerMessageId: 'p-1' }) }, clock);
    expect(ctx.claimsDiscoverable).toBeUndefined();
    expect(await invokeOrKill(deliver(plan!, FRESH_CLAIM, ctx))).toBe('killed');
    const row = await db.ledger.get(plan!.key);
    expect(row?.pendingShard).toBeDefined();
    expect(row?.request).toBeInstanceOf(Uint8Array);
    // Settled here, so the next stories' reclaimer runs find only their own rows.
    expect(await db.ledger.complete(claimOf(row!), { state: 'SENT', providerMessageId: 'p-1' }, clock.now(), row!.expiresAt)).toBe(true);
  });

  it('a takeover on the last receive gives an unindexed claim its message, and the reclaimer sends it byte for byte', async () => {
    const event = large.event({ eventId: 'evt-last-receive-takeover', messageClass: 'otp' });
    const second = await diesAfterTakeover(event, POLICY.maxReceiveCount);
    const taken = await db.ledger.get(keyOf(event));
    expect(taken).toMatchObject({ state: 'PENDING', claimVersion: 2 });
    expect(taken?.request).toBeInstanceOf(Uint8Array);

    const { reclaimer, handed } = reclaimerBeside(second);
    second.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect(handed).toHaveLength(1);
    expectSameBytes(handed[0], renderedOf(event, large.templates));
    expect((await db.ledger.get(keyOf(event)))?.state).toBe('SENT');
  });

  it('a row in the layout written before packing (the plain message) is still read and reclaimed', async () => {
    const event = large.event({ eventId: 'evt-plain-layout-row', messageClass: 'otp' });
    const [plan] = planMessages(event, buildMessageClassRegistry().get('otp')!, large.templates);
    const sender = new SenderHarness({ ledger: db.ledger, templates: large.templates });
    const row = deadClaimRow(plan!, sender.clock.now() - CLAIM_TIMEOUT_MS - 60_000, { layout: 'plain' });
    expect(await db.ledger.claim(row, row.claimedAt)).toEqual({ claimed: true });
    const stored = await db.ledger.get(plan!.key);
    expect(stored?.request).toEqual(renderedOf(event, large.templates)); // a map, as rows held it
    expect(ledgerRowView(stored!).address).toBe('b***@example.com');

    const { reclaimer, handed } = reclaimerBeside(sender);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect(handed).toHaveLength(1);
    expectSameBytes(handed[0], renderedOf(event, large.templates));
    expect((await db.ledger.get(plan!.key))?.state).toBe('SENT');
  });
});

describe('a message too large to keep is never a ledger-failure loop', () => {
  /** 100,000 characters drawn at random from the whole BMP (no surrogates), in the HTML and in the text part: nothing to compress. */
  const hugeTemplates = (() => {
    const random = mulberry32(7);
    // U+00A0..U+D7FF and U+E000..U+FFFC: letters of every script, two or three UTF-8 bytes each, never a surrogate.
    const low = 0xd800 - 0xa0;
    const char = () => {
      const n = Math.floor(random() * (low + 0xfffd - 0xe000));
      return String.fromCharCode(n < low ? 0xa0 + n : 0xe000 + n - low);
    };
    const noise = (n: number) => Array.from({ length: n }, char).join('');
    const template = { fields: { name: { maxLength: 64 } }, email: { subject: 'Hello {{name}}', text: noise(100_000), html: `<p>{{name}}</p>${noise(100_000 - 15)}` } };
    return buildTemplateRegistry([{ name: 'huge.json', text: JSON.stringify(template) }]);
  })();
  const hugeEvent = (eventId: string): NotificationEvent => ({
    eventId,
    occurredAt: '2026-11-29T11:59:00.000Z',
    type: 'Huge',
    templateId: 'huge',
    messageClass: 'otp',
    data: { name: 'Ana' },
    recipients: [{ recipientId: 'buyer-17', email: 'buyer@example.com', channels: ['email'] }],
  });

  it('on its last receive it is sent and settled without the stored message, counted, and no ledger error', async () => {
    const event = hugeEvent('evt-huge-last-receive');
    const harness = new SenderHarness({ ledger: db.ledger, redelivery: POLICY, templates: hugeTemplates });
    const last = sqsRecord(JSON.stringify(event), undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs: harness.clock.now() });
    expect(failedIds(await harness.invoke(last))).toEqual([]);
    expect((await harness.callsPerKey()).get(keyOf(event))).toBe(1);
    expect(await db.ledger.get(keyOf(event))).toMatchObject({ state: 'SENT' });
    expect(harness.metrics.get(METRIC.RequestTooLargeToStore)).toBe(1);
    expect(harness.metrics.get(METRIC.LedgerError)).toBe(0);
  });

  it('if that attempt dies, the reclaimer ends the row with a named reason instead of sending', async () => {
    const event = hugeEvent('evt-huge-dies');
    const sender = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang'), redelivery: POLICY, templates: hugeTemplates });
    const last = sqsRecord(JSON.stringify(event), undefined, { receiveCount: POLICY.maxReceiveCount, sentAtMs: sender.clock.now() });
    expect(await invokeOrKill(sender.invoke(last))).toBe('killed');
    expect(await db.ledger.get(keyOf(event))).toMatchObject({ state: 'PENDING', pendingShard: expect.any(String) });

    const { reclaimer, handed } = reclaimerBeside(sender);
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, failed: 1 });
    expect(handed).toEqual([]);
    expect(await db.ledger.get(keyOf(event))).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^RequestNotStored: .*too large to keep/) });
  });
});
