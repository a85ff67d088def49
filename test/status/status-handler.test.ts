import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimOf, ttlSeconds } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { TIMING, seedDeadClaims } from '../reclaimer/reclaimer-harness';
import {
  RECIPIENT_EMAIL,
  RECIPIENT_PHONE,
  cloudWatchLogsEvent,
  eventBridgeSesEvent,
  sesEvent,
  smsDeliveryLogLine,
  snsEvent,
} from './status-fixtures';
import { StatusHarness } from './status-harness';

const db = useTestLedger();

const clock = new ControlledClock();
const MAIL_AT = '2026-11-29T12:00:00.000Z';
const plus = (ms: number) => new Date(Date.parse(MAIL_AT) + ms).toISOString();

/** A row the sender settled as SENT (`channel` message of a fresh event). */
async function sentRow(eventId: string, channel: 'email' | 'sms', providerMessageId: string): Promise<LedgerRow> {
  const recipient =
    channel === 'email'
      ? { recipientId: 'user-9', email: RECIPIENT_EMAIL, channels: ['email' as const] }
      : { recipientId: 'user-9', phone: RECIPIENT_PHONE, channels: ['sms' as const] };
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId, recipients: [recipient] }), clock.now());
  const now = clock.now();
  // As the sender records it: only SMS rows carry the indexed smsMessageId.
  const outcome = { state: 'SENT' as const, providerMessageId, ...(channel === 'sms' ? { smsMessageId: providerMessageId } : {}) };
  expect(await db.ledger.complete(claimOf(row!), outcome, now, ttlSeconds(now, TIMING))).toBe(true);
  return row!;
}

async function pendingEmailRow(eventId: string): Promise<LedgerRow> {
  const recipient = { recipientId: 'user-9', email: RECIPIENT_EMAIL, channels: ['email' as const] };
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId, messageClass: 'transactional', recipients: [recipient] }), clock.now());
  return row!;
}

describe('SES configuration-set events through SNS', () => {
  it('records the status by the idempotency-key tag; a duplicate or an older event changes nothing', async () => {
    const row = await sentRow('evt-status-ses-1', 'email', 'ses-1');
    const status = new StatusHarness(db.ledger, clock);

    expect(await status.invoke(snsEvent(sesEvent('Send', { key: row.key, mailAt: MAIL_AT })))).toMatchObject({ recorded: 1 });
    const delivery = sesEvent('Delivery', { key: row.key, mailAt: MAIL_AT, at: plus(1_500) });
    expect(await status.invoke(snsEvent(delivery))).toMatchObject({ kind: 'sns', recorded: 1 });
    // SNS delivers at least once, and SES events are not ordered.
    expect(await status.invoke(snsEvent(delivery))).toMatchObject({ recorded: 0, superseded: 1 });
    expect(await status.invoke(snsEvent(sesEvent('Send', { key: row.key, mailAt: MAIL_AT })))).toMatchObject({ superseded: 1 });

    const after = await db.ledger.get(row.key);
    expect(after).toMatchObject({
      state: 'SENT',
      providerMessageId: 'ses-1',
      deliveryStatus: 'Delivery',
      deliveryStatusAt: Date.parse(plus(1_500)),
      deliveryStatusSource: 'ses',
    });
    expect(status.metrics.get(METRIC.DeliveryStatusRecorded)).toBe(2);
    expect(status.metrics.get(METRIC.DeliveryStatusSuperseded)).toBe(2);
    // The sender's recorded id is never replaced by the one in an event.
    expect(await status.invoke(snsEvent(sesEvent('Complaint', { key: row.key, mailAt: MAIL_AT, at: plus(9_000), sesMessageId: 'other' })))).toMatchObject({ recorded: 1 });
    expect((await db.ledger.get(row.key))?.providerMessageId).toBe('ses-1');
  });

  it('counts a recorded Bounce as LateBounce and a Complaint as LateComplaint, once however often SES delivers them', async () => {
    const row = await sentRow('evt-status-late-1', 'email', 'ses-late-1');
    const status = new StatusHarness(db.ledger, clock);
    const bounce = sesEvent('Bounce', { key: row.key, mailAt: MAIL_AT, at: plus(2_000) });
    await status.invoke(snsEvent(bounce));
    await status.invoke(snsEvent(bounce));
    expect(status.metrics.get(METRIC.LateBounce)).toBe(1);
    expect(status.metrics.get(METRIC.LateComplaint) ?? 0).toBe(0);
    await status.invoke(snsEvent(sesEvent('Complaint', { key: row.key, mailAt: MAIL_AT, at: plus(9_000) })));
    expect(status.metrics.get(METRIC.LateComplaint)).toBe(1);
  });

  it('counts neither for a delivery', async () => {
    const row = await sentRow('evt-status-late-2', 'email', 'ses-late-2');
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(snsEvent(sesEvent('Delivery', { key: row.key, mailAt: MAIL_AT, at: plus(1_000) })));
    expect(status.metrics.get(METRIC.LateBounce) ?? 0).toBe(0);
    expect(status.metrics.get(METRIC.LateComplaint) ?? 0).toBe(0);
  });

  it('any order and any duplication of a message\'s events ends on its latest event', async () => {
    const lifecycle = [
      sesEvent('Send', { mailAt: MAIL_AT }),
      sesEvent('DeliveryDelay', { mailAt: MAIL_AT, at: plus(60_000) }),
      sesEvent('Delivery', { mailAt: MAIL_AT, at: plus(120_000) }),
      sesEvent('Complaint', { mailAt: MAIL_AT, at: plus(3_600_000) }),
    ];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: lifecycle.length - 1 }), { minLength: 1, maxLength: 8 }),
        async (order) => {
          const row = await sentRow(`evt-status-order-${run++}`, 'email', `ses-order-${run}`);
          const status = new StatusHarness(db.ledger, clock);
          const tagged = (i: number) => {
            const e = lifecycle[i]!;
            return { ...e, mail: { ...(e.mail as object), tags: { 'idempotency-key': [row.key] } } };
          };
          // Half the deliveries batched in one invocation, the rest one by one.
          const half = Math.ceil(order.length / 2);
          await status.invoke(snsEvent(...order.slice(0, half).map(tagged)));
          for (const i of order.slice(half)) await status.invoke(snsEvent(tagged(i)));

          const latest = Math.max(...order);
          const expected = ['Send', 'DeliveryDelay', 'Delivery', 'Complaint'][latest];
          const after = await db.ledger.get(row.key);
          expect(after?.deliveryStatus).toBe(expected);
          expect(after?.state).toBe('SENT');
          expect(status.metrics.get(METRIC.DeliveryStatusRecorded)).toBeLessThanOrEqual(new Set(order).size);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('at the same event time the later stage wins, in either order (Send then Reject)', async () => {
    for (const order of [['Send', 'Reject'], ['Reject', 'Send']]) {
      const row = await sentRow(`evt-status-tie-${order[0]}`, 'email', `ses-tie-${order[0]}`);
      const status = new StatusHarness(db.ledger, clock);
      for (const type of order) await status.invoke(snsEvent(sesEvent(type, { key: row.key, mailAt: MAIL_AT })));
      expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'Reject', deliveryStatusDetail: 'Bad content' });
    }
  });

  it('never changes a row\'s state: a PENDING row keeps its claim, index entry and request', async () => {
    const row = await pendingEmailRow('evt-status-pending');
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(snsEvent(sesEvent('Delivery', { key: row.key, mailAt: MAIL_AT, at: plus(900) })));
    const after = await db.ledger.get(row.key);
    expect(after).toMatchObject({
      state: 'PENDING',
      claimVersion: row.claimVersion,
      ownerToken: row.ownerToken,
      pendingShard: row.pendingShard,
      expiresAt: row.expiresAt,
      deliveryStatus: 'Delivery',
    });
    expect(after?.request).toEqual(row.request);
  });

  it('an event for no ledger row is counted and logged, creates nothing, and does not fail', async () => {
    const status = new StatusHarness(db.ledger, clock);
    const unknownKey = 'f'.repeat(64);
    const summary = await status.invoke(
      snsEvent(sesEvent('Delivery', { key: unknownKey, mailAt: MAIL_AT }), sesEvent('Bounce', { mailAt: MAIL_AT, sesMessageId: 'not-ours' })),
    );
    expect(summary).toMatchObject({ recorded: 0, unmatched: 2 });
    expect(await db.ledger.get(unknownKey)).toBeUndefined();
    expect(status.metrics.get(METRIC.DeliveryStatusUnmatched)).toBe(2);
    expect(status.logs.filter((l) => l.message.includes('matches no ledger row'))).toHaveLength(2);
  });

  it('SES mail without our key tag is never matched by SES\'s message id (not ours; no index lookup)', async () => {
    const row = await sentRow('evt-status-untagged', 'email', 'ses-untagged');
    const status = new StatusHarness(db.ledger, clock);
    const untagged = sesEvent('Delivery', { mailAt: MAIL_AT, sesMessageId: 'ses-untagged' });
    expect(await status.invoke(snsEvent(untagged))).toMatchObject({ recorded: 0, unmatched: 1 });
    expect((await db.ledger.get(row.key))?.deliveryStatus).toBeUndefined();
  });

  it('malformed messages and unknown inputs are counted, not thrown', async () => {
    const status = new StatusHarness(db.ledger, clock);
    expect(await status.invoke(snsEvent('not json', { hello: 'world' }, sesEvent('Open', { mailAt: 'yesterday' })))).toMatchObject({
      invalid: 3,
      recorded: 0,
    });
    expect(await status.invoke({ Records: [{ not: 'sns' }] })).toMatchObject({ kind: 'sns', invalid: 1 });
    expect(await status.invoke({ something: 'else' })).toMatchObject({ kind: 'unknown', invalid: 1 });
    expect(status.metrics.get(METRIC.DeliveryStatusInvalid)).toBe(5);
  });

  it('the claim version recorded is the recorded status’s own: a later untagged event removes it, an older one changes nothing', async () => {
    const row = await sentRow('evt-status-claim-version', 'email', 'ses-claim-version');
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(snsEvent(sesEvent('Send', { key: row.key, mailAt: MAIL_AT, claimVersion: 3 })));
    expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'Send', deliveryStatusClaimVersion: 3 });
    await status.invoke(snsEvent(sesEvent('Delivery', { key: row.key, mailAt: MAIL_AT, at: plus(1_000), claimVersion: 4 })));
    expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'Delivery', deliveryStatusClaimVersion: 4 });
    await status.invoke(snsEvent(sesEvent('Send', { key: row.key, mailAt: MAIL_AT, claimVersion: 9 })));
    expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'Delivery', deliveryStatusClaimVersion: 4 });
    await status.invoke(snsEvent(sesEvent('Complaint', { key: row.key, mailAt: MAIL_AT, at: plus(2_000) })));
    const opened = await db.ledger.get(row.key);
    expect(opened?.deliveryStatus).toBe('Complaint');
    expect(opened).not.toHaveProperty('deliveryStatusClaimVersion');
  });

  it('also takes SES events from EventBridge', async () => {
    const row = await sentRow('evt-status-eventbridge', 'email', 'ses-eb');
    const status = new StatusHarness(db.ledger, clock);
    const bounce = sesEvent('Bounce', { key: row.key, mailAt: MAIL_AT, at: plus(2_000) });
    expect(await status.invoke(eventBridgeSesEvent(bounce))).toMatchObject({ kind: 'eventbridge', recorded: 1 });
    expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'Bounce', deliveryStatusDetail: 'Permanent/General' });
  });

  // The EventBridge event reference names SES's event types only as detail-types ("Amazon Simple Email Service events":
  // Email Sent, Email Delivered, Email Bounced, ...), and none of the sources searched shows whether `detail` repeats
  // SES's `eventType` on this path: the handler reads the detail-type when `detail.eventType` is absent (issue 53).
  it.each([
    ['Email Bounced', 'Bounce'],
    ['Email Delivered', 'Delivery'],
    ['Email Complaint Received', 'Complaint'],
  ] as const)('reads the event type from the detail-type (%s) when detail carries no eventType', async (detailType, eventType) => {
    const row = await sentRow(`evt-status-eventbridge-${eventType}`, 'email', `ses-eb-${eventType}`);
    const status = new StatusHarness(db.ledger, clock);
    const { eventType: _dropped, ...detail } = sesEvent(eventType, { key: row.key, mailAt: MAIL_AT, at: plus(2_000) });
    expect(await status.invoke({ ...eventBridgeSesEvent(detail), 'detail-type': detailType })).toMatchObject({ kind: 'eventbridge', recorded: 1, invalid: 0 });
    expect((await db.ledger.get(row.key))?.deliveryStatus).toBe(eventType);
  });

  it('takes detail.eventType over the detail-type when both are there, and refuses an SES detail-type it does not know without one', async () => {
    const row = await sentRow('evt-status-eventbridge-both', 'email', 'ses-eb-both');
    const status = new StatusHarness(db.ledger, clock);
    const bounce = sesEvent('Bounce', { key: row.key, mailAt: MAIL_AT, at: plus(2_000) });
    expect(await status.invoke({ ...eventBridgeSesEvent(bounce), 'detail-type': 'Email Delivered' })).toMatchObject({ recorded: 1 });
    expect((await db.ledger.get(row.key))?.deliveryStatus).toBe('Bounce');
    const { eventType: _dropped, ...detail } = bounce;
    expect(await status.invoke({ ...eventBridgeSesEvent(detail), 'detail-type': 'Sending Status Disabled' })).toMatchObject({ recorded: 0, invalid: 1 });
  });

  it('logs never contain the address, and the stored detail is address-free', async () => {
    const row = await sentRow('evt-status-pii', 'email', 'ses-pii');
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(snsEvent(sesEvent('Bounce', { key: row.key, mailAt: MAIL_AT, at: plus(5) }), sesEvent('Bounce', { mailAt: MAIL_AT })));
    expect(status.logText()).not.toContain(RECIPIENT_EMAIL);
    expect(JSON.stringify(await db.ledger.get(row.key))).not.toContain('550');
  });
});

describe('SNS SMS delivery-status logs through a CloudWatch Logs subscription', () => {
  it('finds the row by SNS message id and records SUCCESS; a replayed batch changes nothing', async () => {
    const row = await sentRow('evt-status-sms-1', 'sms', 'sns-msg-1');
    const status = new StatusHarness(db.ledger, clock);
    const at = clock.now() + 2_000;
    const batch = cloudWatchLogsEvent([
      { message: smsDeliveryLogLine('sns-msg-1', 'SUCCESS'), timestamp: at },
      { message: smsDeliveryLogLine('sns-msg-unknown', 'FAILURE'), timestamp: at },
      { message: 'not json', timestamp: at },
    ]);
    expect(await status.invoke(batch)).toMatchObject({ kind: 'cloudwatch-logs', recorded: 1, unmatched: 1, invalid: 1 });
    expect(await status.invoke(batch)).toMatchObject({ recorded: 0, superseded: 1, unmatched: 1 });
    expect(await db.ledger.get(row.key)).toMatchObject({
      state: 'SENT',
      deliveryStatus: 'SUCCESS',
      deliveryStatusAt: at,
      deliveryStatusSource: 'sns-sms',
    });
    expect(status.logText()).not.toContain(RECIPIENT_PHONE);
    expect(JSON.stringify(await db.ledger.get(row.key))).not.toContain('carrier');
  });

  it('ignores the subscription\'s control message', async () => {
    const status = new StatusHarness(db.ledger, clock);
    const control = cloudWatchLogsEvent([{ message: 'CWL CONTROL MESSAGE: Checking health of destination', timestamp: 0 }], 'CONTROL_MESSAGE');
    expect(await status.invoke(control)).toEqual({ kind: 'cloudwatch-logs', recorded: 0, superseded: 0, unmatched: 0, invalid: 0 });
  });
});
