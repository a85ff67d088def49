import { describe, expect, it } from 'vitest';
import { primaryVerdict } from '../../functions/core/fallback/primary-verdict';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { DeliveryStatusUpdate } from '../../functions/core/provider/delivery-status';
import { useTestLedger } from '../support/ledger-server';

const db = useTestLedger();

/** The ledger requests each test made, by operation, counted on the wire's client. */
const requests: string[] = [];
let counting = false;
function countRequests(): void {
  if (counting) return;
  counting = true;
  db.client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countLedgerRequests' },
  );
}

/**
 * Defect (review, 2026-12-06): SES's `Delivery` of an e-mail and a later `Bounce` `Transient/General` (the
 * recipient's out-of-office reply) left only the bounce on the row, which read as "possibly delivered". The row keeps
 * the first proof of delivery for good (`deliveryProvenBy`), in the status write itself, whichever arrives first.
 */
const t0 = Date.parse('2026-12-06T06:00:00Z');
let rows = 0;

async function sentEmailRow(): Promise<string> {
  rows += 1;
  const key = String(rows).padStart(64, 'e');
  const claim = newClaimRow({
    subject: { key, eventId: `evt-proof-${rows}`, recipientId: 'user-9', channel: 'email', templateId: 'login-code', messageClass: 'otp', occurredAt: '2026-12-06T05:59:00Z' },
    ownerToken: 'owner-1',
    nowMs: t0,
    timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
  });
  const result = await db.ledger.claim(claim, t0);
  if (!result.claimed) throw new Error('seed row exists');
  return key;
}

const delivery: DeliveryStatusUpdate = { status: 'Delivery', at: t0 + 1_000, source: 'ses', claimVersion: 1, providerMessageId: 'ses-1' };
const autoReply: DeliveryStatusUpdate = { status: 'Bounce', at: t0 + 60_000, source: 'ses', detail: 'Transient/General', claimVersion: 1, providerMessageId: 'ses-1' };

describe('the proof of delivery stays on the row (defect: a later auto-reply bounce replaced the Delivery)', () => {
  it.each([
    { order: 'Delivery, then the later bounce', updates: [delivery, autoReply] },
    { order: 'the later bounce first, then the older Delivery', updates: [autoReply, delivery] },
  ])('$order: the row holds the bounce and deliveryProvenBy Delivery, and reads as delivered', async ({ updates }) => {
    const key = await sentEmailRow();
    for (const update of updates) expect(await db.ledger.recordDeliveryStatus(key, update, t0 + 70_000)).toBe('recorded');
    const row = await db.ledger.get(key);
    expect(row).toMatchObject({ deliveryStatus: 'Bounce', deliveryStatusDetail: 'Transient/General', deliveryProvenBy: 'Delivery' });
    // The proof of a send is whichever came first (the bounce proves one too).
    expect(row?.sendProvenBy).toBe(updates[0]!.status);
    expect(primaryVerdict({ ...row!, state: 'SENT' })).toEqual({ kind: 'delivered', status: 'Delivery' });
  });

  it('in order, the proof costs no request of its own: one UpdateItem per event, as before', async () => {
    const key = await sentEmailRow();
    countRequests();
    requests.length = 0;
    expect(await db.ledger.recordDeliveryStatus(key, delivery, t0 + 2_000)).toBe('recorded');
    expect(await db.ledger.recordDeliveryStatus(key, autoReply, t0 + 61_000)).toBe('recorded');
    expect(requests).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect(await db.ledger.get(key)).toMatchObject({ deliveryStatus: 'Bounce', deliveryProvenBy: 'Delivery' });
  });

  it('the first proof stays: a later Open replaces the status, not the proof', async () => {
    const key = await sentEmailRow();
    await db.ledger.recordDeliveryStatus(key, delivery, t0 + 2_000);
    await db.ledger.recordDeliveryStatus(key, { ...delivery, status: 'Open', at: t0 + 5_000 }, t0 + 6_000);
    expect(await db.ledger.get(key)).toMatchObject({ deliveryStatus: 'Open', deliveryProvenBy: 'Delivery' });
  });

  it('a proof of a send that is not a delivery (DeliveryDelay) sets no deliveryProvenBy', async () => {
    const key = await sentEmailRow();
    await db.ledger.recordDeliveryStatus(key, { ...delivery, status: 'DeliveryDelay' }, t0 + 2_000);
    const row = await db.ledger.get(key);
    expect(row).toMatchObject({ sendProvenBy: 'DeliveryDelay' });
    expect(row?.deliveryProvenBy).toBeUndefined();
  });

  it('an intermediate End User Messaging word (not isFinal) sets no deliveryProvenBy, in either order', async () => {
    const inOrder = await sentEmailRow();
    const intermediate: DeliveryStatusUpdate = { status: 'TEXT_DELIVERED', at: t0 + 1_000, source: 'eum-sms', intermediate: true };
    await db.ledger.recordDeliveryStatus(inOrder, intermediate, t0 + 2_000);
    expect((await db.ledger.get(inOrder))?.deliveryProvenBy).toBeUndefined();
    const late = await sentEmailRow();
    await db.ledger.recordDeliveryStatus(late, { status: 'TEXT_UNKNOWN', at: t0 + 9_000, source: 'eum-sms' }, t0 + 9_500);
    await db.ledger.recordDeliveryStatus(late, intermediate, t0 + 10_000);
    expect((await db.ledger.get(late))?.deliveryProvenBy).toBeUndefined();
  });

  it('an older final delivery of a row already proven sent (a refusal between) still records deliveryProvenBy', async () => {
    const key = await sentEmailRow();
    await db.ledger.recordDeliveryStatus(key, { ...delivery, status: 'DeliveryDelay', at: t0 + 500 }, t0 + 600);
    await db.ledger.recordDeliveryStatus(key, autoReply, t0 + 61_000);
    expect(await db.ledger.recordDeliveryStatus(key, delivery, t0 + 62_000)).toBe('recorded');
    expect(await db.ledger.get(key)).toMatchObject({ deliveryStatus: 'Bounce', sendProvenBy: 'DeliveryDelay', deliveryProvenBy: 'Delivery' });
    // A duplicate of it changes nothing.
    expect(await db.ledger.recordDeliveryStatus(key, delivery, t0 + 63_000)).toBe('superseded');
  });
});
