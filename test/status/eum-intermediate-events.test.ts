import { describe, expect, it } from 'vitest';
import { fallbackDecision } from '../../functions/core/fallback/fallback-decision';
import { primaryVerdict } from '../../functions/core/fallback/primary-verdict';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { visibleOutcome } from '../../functions/core/outcome/outcome-state';
import { evidenceFromRow } from '../../functions/core/provider/delivery-evidence';
import { statusFromEumEvent } from '../../functions/status/eum-sms-event';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { METRIC } from '../../functions/core/observability/metric-names';
import { eumEvent, sqsEvent } from './eum-fixtures';
import { RECIPIENT_PHONE } from './status-fixtures';
import { StatusHarness } from './status-harness';

/**
 * End User Messaging SMS events carry `isFinal`: "True if this is the final status for the message. There are
 * intermediate message statuses", the final one up to 72 hours later ("Example SMS event data",
 * https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html). Only a final event
 * may make a text certainly undelivered (a fallback) or unsent (FAILED); an intermediate failure is at most "AWS
 * has the text, its final word is to come".
 */
const db = useTestLedger();
const clock = new ControlledClock();
const AT = Date.parse('2026-11-29T12:00:00.000Z');
const otp = { enabled: true, withoutEvidenceSeconds: 60 };

/** A PENDING SMS row whose owner died mid-send (claim version 1), its text possibly with End User Messaging. */
async function smsRow(eventId: string): Promise<LedgerRow> {
  const recipient = { recipientId: 'user-9', phone: RECIPIENT_PHONE, channels: ['sms' as const] };
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId, recipients: [recipient] }), clock.now());
  return row!;
}

/** The row as the status function left it, once the sender settled it SENT (what the fallback trigger and the outcome publisher read). */
async function sentView(key: string): Promise<LedgerRow> {
  const row = (await db.ledger.get(key))!;
  return { ...row, state: 'SENT', resolvedAt: AT - 1_000, updatedAt: AT - 1_000 };
}

describe('End User Messaging SMS events that are not final (isFinal)', () => {
  it('an intermediate TEXT_UNREACHABLE no longer makes the text certainly undelivered (no early fallback, no BOUNCED): the row waits for the final event', async () => {
    const row = await smsRow('evt-eum-intermediate-1');
    const status = new StatusHarness(db.ledger, clock);
    const event = (isFinal: boolean, at: number) => eumEvent('TEXT_UNREACHABLE', { key: row.key, claimVersion: 1, messageId: 'eum-i1', at, isFinal });
    expect(await status.invoke(sqsEvent(eumEvent('TEXT_PENDING', { key: row.key, claimVersion: 1, messageId: 'eum-i1', at: AT }), event(false, AT + 1_000)))).toMatchObject({ recorded: 2 });

    const waiting = await sentView(row.key);
    expect(primaryVerdict(waiting)).toMatchObject({ kind: 'possibly-delivered' });
    expect(fallbackDecision(waiting, otp, AT + 2_000)).toMatchObject({ kind: 'check-at' });
    expect(visibleOutcome(waiting)).toMatchObject({ state: 'SENT', source: 'ledger' });
    expect(waiting).toMatchObject({ deliveryStatus: 'TEXT_UNREACHABLE', deliveryStatusIntermediate: true });
    expect(evidenceFromRow(waiting)).toBe('sent');

    // The final word, even with the same type: now it is certain.
    expect(await status.invoke(sqsEvent(event(true, AT + 5_000)))).toMatchObject({ recorded: 1 });
    const settled = await sentView(row.key);
    expect(settled.deliveryStatusIntermediate).toBeUndefined();
    expect(primaryVerdict(settled)).toMatchObject({ kind: 'certainly-undelivered', cause: 'hard-failure' });
    expect(visibleOutcome(settled)).toMatchObject({ state: 'BOUNCED', source: 'provider' });
  });

  it.each(['TEXT_INVALID', 'TEXT_TTL_EXPIRED'])(
    'an intermediate %s no longer proves the attempt unsent (the reclaimer would settle FAILED): AWS has the text, so it reads as accepted',
    async (type) => {
      const row = await smsRow(`evt-eum-intermediate-${type}`);
      const status = new StatusHarness(db.ledger, clock);
      await status.invoke(sqsEvent(eumEvent(type, { key: row.key, claimVersion: 1, messageId: `eum-${type}`, at: AT, isFinal: false })));
      const intermediate = (await db.ledger.get(row.key))!;
      expect(evidenceFromRow(intermediate)).toBe('sent');
      // An accepted text's id is kept: the row names the message AWS may still hand off.
      expect(intermediate.providerMessageId).toBe(`eum-${type}`);
      expect(primaryVerdict({ ...intermediate, state: 'SENT' })).toMatchObject({ kind: 'possibly-delivered' });

      await status.invoke(sqsEvent(eumEvent(type, { key: row.key, claimVersion: 1, messageId: `eum-${type}`, at: AT + 1, isFinal: true })));
      expect(evidenceFromRow((await db.ledger.get(row.key))!)).toBe('not-sent');
    },
  );

  it('a final event at the same time and of the same type as the intermediate one before it is recorded, not dropped as a duplicate', async () => {
    const row = await smsRow('evt-eum-intermediate-2');
    const status = new StatusHarness(db.ledger, clock);
    const event = (isFinal: boolean) => eumEvent('TEXT_BLOCKED', { key: row.key, claimVersion: 1, messageId: 'eum-i2', at: AT, isFinal });
    expect(await status.invoke(sqsEvent(event(false)))).toMatchObject({ recorded: 1 });
    expect(await status.invoke(sqsEvent(event(true)))).toMatchObject({ recorded: 1 });
    expect(await status.invoke(sqsEvent(event(true)))).toMatchObject({ recorded: 0, superseded: 1 });
    // A late intermediate copy of the same event never takes the final word back.
    expect(await status.invoke(sqsEvent(event(false)))).toMatchObject({ recorded: 0, superseded: 1 });
    expect(primaryVerdict(await sentView(row.key))).toMatchObject({ kind: 'certainly-undelivered' });
  });

  it('reads an event without isFinal, or with anything but true, as intermediate (AWS\'s shape promises nothing else)', () => {
    const key = 'c'.repeat(64);
    const read = (isFinal: boolean | 'absent' | string) => statusFromEumEvent({ ...eumEvent('TEXT_UNREACHABLE', { key, at: AT, isFinal: 'absent' }), ...(isFinal === 'absent' ? {} : { isFinal }) });
    expect(read(true)).toMatchObject({ update: { status: 'TEXT_UNREACHABLE' } });
    expect(read(true)).not.toHaveProperty('update.intermediate');
    for (const isFinal of [false, 'absent', 'true', 'yes'] as const) expect(read(isFinal), String(isFinal)).toMatchObject({ update: { status: 'TEXT_UNREACHABLE', intermediate: true } });
  });

  // An AWS-docs review (2026-12-06): the conservative reading of a missing isFinal must not be silent, or a changed
  // format would leave every failed text waiting with nothing to show for it.
  it('counts an event without a boolean isFinal (DeliveryStatusFinalityUnstated), and not one that has it', async () => {
    const row = await smsRow('evt-eum-finality-unstated');
    const status = new StatusHarness(db.ledger, clock);
    const withField = (isFinal: unknown, at: number) => ({ ...eumEvent('TEXT_UNREACHABLE', { key: row.key, claimVersion: 1, messageId: 'eum-u1', at, isFinal: 'absent' }), ...(isFinal === 'absent' ? {} : { isFinal }) });
    await status.invoke(sqsEvent(withField(false, AT), withField(true, AT + 1)));
    expect(status.metrics.get(METRIC.DeliveryStatusFinalityUnstated) ?? 0).toBe(0);
    await status.invoke(sqsEvent(withField('absent', AT + 2), withField('true', AT + 3)));
    expect(status.metrics.get(METRIC.DeliveryStatusFinalityUnstated)).toBe(2);
  });
});
