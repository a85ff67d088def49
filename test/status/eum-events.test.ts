import { EventType, SpendLimitName } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { describe, expect, it } from 'vitest';
import { evidenceFromRow, type RowEvidenceFields } from '../../functions/core/provider/delivery-evidence';
import { METRIC } from '../../functions/core/observability/metric-names';
import { statusFromEumEvent } from '../../functions/status/eum-sms-event';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { eumEvent, snsNotificationBody, sqsEvent } from './eum-fixtures';
import { RECIPIENT_PHONE, snsEvent } from './status-fixtures';
import { StatusHarness } from './status-harness';

const db = useTestLedger();
const clock = new ControlledClock();
const AT = Date.parse('2026-11-29T12:00:00.000Z');

/** A PENDING SMS row whose owner died mid-send (claim version 1): its send may have reached End User Messaging. */
async function ambiguousSmsRow(eventId: string) {
  const recipient = { recipientId: 'user-9', phone: RECIPIENT_PHONE, channels: ['sms' as const] };
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId, recipients: [recipient] }), clock.now());
  return row!;
}

describe('End User Messaging SMS events through SNS and SQS', () => {
  it('records the status by the key in Context, with the claim version and End User Messaging\'s id; duplicates and older events change nothing', async () => {
    const row = await ambiguousSmsRow('evt-eum-status-1');
    const status = new StatusHarness(db.ledger, clock);
    const pending = eumEvent('TEXT_PENDING', { key: row.key, claimVersion: 1, messageId: 'eum-1', at: AT });
    expect(await status.invoke(sqsEvent(pending))).toMatchObject({ kind: 'sqs', recorded: 1 });
    expect(await db.ledger.get(row.key)).toMatchObject({
      state: 'PENDING',
      deliveryStatus: 'TEXT_PENDING',
      deliveryStatusAt: AT,
      deliveryStatusSource: 'eum-sms',
      deliveryStatusClaimVersion: 1,
      // The send's answer was lost: the event names the message, so a row settled on it carries the real id.
      providerMessageId: 'eum-1',
    });
    const delivered = eumEvent('TEXT_DELIVERED', { key: row.key, claimVersion: 1, messageId: 'eum-1', at: AT + 2_000 });
    expect(await status.invoke(sqsEvent(delivered, pending))).toMatchObject({ recorded: 1, superseded: 1 });
    expect(await status.invoke(sqsEvent(delivered))).toMatchObject({ recorded: 0, superseded: 1 });
    expect(await db.ledger.get(row.key)).toMatchObject({ deliveryStatus: 'TEXT_DELIVERED', deliveryStatusAt: AT + 2_000 });
    expect(status.metrics.get(METRIC.DeliveryStatusRecorded)).toBe(2);
  });

  it('takes the event as the raw body, as an SNS notification in the body, and from an SNS subscription', async () => {
    const row = await ambiguousSmsRow('evt-eum-status-2');
    const status = new StatusHarness(db.ledger, clock);
    const event = (type: string, at: number) => eumEvent(type, { key: row.key, claimVersion: 1, at });
    expect(await status.invoke(sqsEvent(snsNotificationBody(event('TEXT_QUEUED', AT))))).toMatchObject({ kind: 'sqs', recorded: 1 });
    expect(await status.invoke(snsEvent(event('TEXT_SUCCESSFUL', AT + 1)))).toMatchObject({ kind: 'sns', recorded: 1 });
    expect((await db.ledger.get(row.key))?.deliveryStatus).toBe('TEXT_SUCCESSFUL');
  });

  // Issue 53 asked whether the decoder drops or misreads the SDK's TEXT_SENT and TEXT_MESSAGE_MONTHLY_SPEND_LIMIT. The
  // second is no event type: the SDK lists it under SpendLimitName (DescribeSpendLimits), not EventType. What each
  // type proves is the evidence table's (issue 52); here only that none is read as another.
  it("reads every TEXT_ event type of the SDK's EventType as itself or refuses it by name, never as another", () => {
    expect(Object.keys(EventType)).not.toContain('TEXT_MESSAGE_MONTHLY_SPEND_LIMIT');
    expect(Object.keys(SpendLimitName)).toContain('TEXT_MESSAGE_MONTHLY_SPEND_LIMIT');
    const types = Object.values(EventType).filter((t) => t.startsWith('TEXT_') && t !== EventType.TEXT_ALL);
    expect(types).toContain('TEXT_SENT');
    for (const type of types) {
      const read = statusFromEumEvent(eumEvent(type, { key: 'a'.repeat(64), claimVersion: 1, at: AT }));
      if ('invalid' in read) expect(read.invalid, type).toContain(type);
      else expect(read.update.status, type).toBe(type);
    }
  });

  it('an event type the ledger does not know is counted as invalid, never recorded or guessed', async () => {
    const row = await ambiguousSmsRow('evt-eum-status-3');
    const status = new StatusHarness(db.ledger, clock);
    const unknown = eumEvent('TEXT_SOMETHING_NEW', { key: row.key, claimVersion: 1, at: AT });
    const voice = eumEvent('VOICE_COMPLETED', { key: row.key, claimVersion: 1, at: AT });
    expect(await status.invoke(sqsEvent(unknown, voice, 'not json'))).toMatchObject({ recorded: 0, invalid: 3 });
    expect(status.metrics.get(METRIC.DeliveryStatusInvalid)).toBe(3);
    expect((await db.ledger.get(row.key))?.deliveryStatus).toBeUndefined();
  });

  it('an event without our key in Context is another sender\'s: unmatched, with no ledger read', async () => {
    const status = new StatusHarness(
      {
        recordDeliveryStatus: () => Promise.reject(new Error('no read')),
        keyForSmsMessageId: () => Promise.reject(new Error('no read')),
        consentKeyOfRow: () => Promise.reject(new Error('no read')),
        suppressAfterAcceptance: () => Promise.reject(new Error('no write')),
      },
      clock,
    );
    expect(await status.invoke(sqsEvent(eumEvent('TEXT_DELIVERED', { at: AT })))).toMatchObject({ unmatched: 1 });
    expect(status.metrics.get(METRIC.DeliveryStatusUnmatched)).toBe(1);
  });

  it('never logs or stores the phone numbers the event carries', async () => {
    const row = await ambiguousSmsRow('evt-eum-status-4');
    const status = new StatusHarness(db.ledger, clock);
    await status.invoke(sqsEvent(eumEvent('TEXT_BLOCKED', { key: row.key, claimVersion: 1, at: AT })));
    expect(status.logText()).not.toContain(RECIPIENT_PHONE.slice(2));
    // The PENDING row keeps its own request (the address it sends to); nothing from the event adds one.
    const { request: _kept, ...recorded } = (await db.ledger.get(row.key))!;
    expect(JSON.stringify(recorded)).not.toContain(RECIPIENT_PHONE.slice(2));
    expect((await db.ledger.get(row.key))?.deliveryStatusDetail).toBe('BLOCKED');
  });

  it('reads the claim version from Context as a positive whole number, anything else as none', () => {
    const key = 'b'.repeat(64);
    expect(statusFromEumEvent(eumEvent('TEXT_PENDING', { key, claimVersion: 3, at: AT }))).toMatchObject({ update: { claimVersion: 3 } });
    for (const claimVersion of ['0', '03', '-1', 'x']) {
      expect(statusFromEumEvent(eumEvent('TEXT_PENDING', { key, claimVersion, at: AT })), claimVersion).not.toHaveProperty('update.claimVersion');
    }
  });
});

describe('what an End User Messaging status proves', () => {
  const row = (fields: Partial<RowEvidenceFields>): RowEvidenceFields => ({ claimVersion: 2, lastRelease: 'ambiguous', deliveryStatusClaimVersion: 2, ...fields });

  it.each(['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SUCCESSFUL', 'TEXT_DELIVERED', 'TEXT_BLOCKED', 'TEXT_UNREACHABLE', 'TEXT_CARRIER_UNREACHABLE', 'TEXT_CARRIER_BLOCKED', 'TEXT_SPAM', 'TEXT_UNKNOWN'])(
    '%s: AWS accepted the text (or the carrier took it): sending again would be a second text',
    (status) => {
      expect(evidenceFromRow(row({ deliveryStatus: status }))).toBe('sent');
      // One sent text is enough, whichever attempt it came from.
      expect(evidenceFromRow(row({ deliveryStatus: status, deliveryStatusClaimVersion: 1 }))).toBe('sent');
    },
  );

  it.each(['TEXT_INVALID', 'TEXT_INVALID_MESSAGE', 'TEXT_PROTECT_BLOCKED', 'TEXT_TTL_EXPIRED'])(
    '%s: refused before hand-off, proof only for the attempt it names',
    (status) => {
      expect(evidenceFromRow(row({ deliveryStatus: status }))).toBe('not-sent');
      expect(evidenceFromRow(row({ deliveryStatus: status, deliveryStatusClaimVersion: 1 }))).toBe('none');
      expect(evidenceFromRow(row({ deliveryStatus: status, lastRelease: 'transient' }))).toBe('none');
    },
  );
});
