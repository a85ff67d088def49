import { describe, expect, it } from 'vitest';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { ReclaimerHarness } from '../reclaimer/reclaimer-harness';
import { RECIPIENT_EMAIL, sesEvent, snsEvent } from './status-fixtures';
import { StatusHarness } from './status-harness';

const db = useTestLedger();

/** Like SES v2: the provider cannot be asked about our key; only its events tell. */
const noLookup = (inner: DeliveryProvider): DeliveryProvider => ({ send: (r, s) => inner.send(r, s) });

/**
 * A `transactional` (look-up) email whose worker died right after SES accepted it: the row is
 * PENDING and only SES's configuration-set events can say what happened.
 */
async function ambiguousEmail(eventId: string) {
  const event = loginCodeEvent({
    eventId,
    messageClass: 'transactional',
    recipients: [{ recipientId: 'user-9', email: RECIPIENT_EMAIL, channels: ['email'] }],
  });
  const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'email', templateId: 'login-code' });
  const sender = new SenderHarness({ ledger: db.ledger, wrapProvider: (p) => crashAfterFirst(noLookup(p), 'send', 'hang') });
  const body = JSON.stringify(event);
  expect(await invokeOrKill(sender.invoke(sqsRecord(body)))).toBe('killed');
  const status = new StatusHarness(db.ledger, sender.clock);
  const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile, withoutLookup: true });
  const mailAt = new Date(sender.clock.now()).toISOString();
  return { sender, status, reclaimer, key, body, mailAt };
}

describe('delivery evidence closes the ambiguous window', () => {
  it('the reclaimer marks a lookup row with delivery evidence SENT, with no resend', async () => {
    const { sender, status, reclaimer, key, mailAt } = await ambiguousEmail('evt-evidence-reclaimer');
    const ses = { key, mailAt, sesMessageId: '0100-ses-evidence-1' };
    await status.invoke(snsEvent(sesEvent('Send', ses), sesEvent('Delivery', { ...ses, at: mailAt })));
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', deliveryStatus: 'Delivery', providerMessageId: '0100-ses-evidence-1' });

    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, sent: 1, resent: 0 });
    // Settled on evidence, with SES's own message id rather than a placeholder.
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', deliveryStatus: 'Delivery', providerMessageId: '0100-ses-evidence-1' });
    expect((await sender.callsPerKey()).get(key)).toBe(1);
    expect(reclaimer.metrics.get(METRIC.ReclaimedSent)).toBe(1);
    expect(reclaimer.metrics.get(METRIC.SentByEvidence)).toBe(1);
  });

  it('a sender redelivery uses the same evidence', async () => {
    const { sender, status, key, body, mailAt } = await ambiguousEmail('evt-evidence-sender');
    await status.invoke(snsEvent(sesEvent('Send', { key, mailAt })));
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect((await sender.invoke(sqsRecord(body))).batchItemFailures).toEqual([]);
    expect((await db.ledger.get(key))?.state).toBe('SENT');
    expect((await sender.callsPerKey()).get(key)).toBe(1);
  });

  it('evidence that SES refused the message (Reject) makes it a plain send, not a counted duplicate', async () => {
    const { sender, status, reclaimer, key, mailAt } = await ambiguousEmail('evt-evidence-reject');
    await status.invoke(snsEvent(sesEvent('Send', { key, mailAt, claimVersion: 1 }), sesEvent('Reject', { key, mailAt, claimVersion: 1 })));
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect((await sender.callsPerKey()).get(key)).toBe(2);
    expect(reclaimer.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
  });

  describe('a refusal is evidence only about the attempt it names', () => {
    /** Claim 1's e-mail was refused (its Reject recorded), then claim 2, the reclaimer's resend, died after SES accepted it. */
    async function refusedThenAmbiguousAgain(eventId: string) {
      const story = await ambiguousEmail(eventId);
      const { sender, status, key, mailAt } = story;
      await status.invoke(snsEvent(sesEvent('Send', { key, mailAt, claimVersion: 1 }), sesEvent('Reject', { key, mailAt, claimVersion: 1 })));
      sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
      const dying = new ReclaimerHarness({
        ledger: db.ledger,
        clock: sender.clock,
        outboxFile: sender.outboxFile,
        withoutLookup: true,
        wrapProvider: (p) => {
          const dies = crashAfterFirst(p, 'send', 'hang');
          return { send: (request, signal) => (sentVersions.push(request.claimVersion), dies.send(request, signal)) };
        },
      });
      const sentVersions: number[] = [];
      expect(await invokeOrKill(dying.reclaimer.run())).toBe('killed');
      // The resend names its own claim, as SES's events about it will.
      expect(sentVersions).toEqual([2]);
      expect((await sender.callsPerKey()).get(key)).toBe(2);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', claimVersion: 2, deliveryStatus: 'Reject', deliveryStatusClaimVersion: 1 });
      sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
      return story;
    }

    it('an earlier attempt’s Reject does not prove the later ambiguous attempt unsent: the class waits, then resends counted', async () => {
      const { sender, reclaimer, key } = await refusedThenAmbiguousAgain('evt-evidence-stale-reject');
      await reclaimer.run();
      // Claim 2 may have sent it: no resend inside the evidence wait.
      expect((await sender.callsPerKey()).get(key)).toBe(2);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous' });

      sender.clock.advance(300_000);
      await reclaimer.run();
      expect((await sender.callsPerKey()).get(key)).toBe(3);
      expect((await db.ledger.get(key))?.state).toBe('SENT');
      // The resend is a possible duplicate, and counted as one.
      expect(reclaimer.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
    });

    it('a Reject naming the latest ambiguous attempt makes the resend a plain send', async () => {
      const { sender, status, reclaimer, key, mailAt } = await refusedThenAmbiguousAgain('evt-evidence-latest-reject');
      const later = new Date(Date.parse(mailAt) + CLAIM_TIMEOUT_MS).toISOString();
      await status.invoke(snsEvent(sesEvent('Reject', { key, mailAt: later, claimVersion: 2 })));
      expect(await db.ledger.get(key)).toMatchObject({ deliveryStatus: 'Reject', deliveryStatusClaimVersion: 2 });
      expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
      expect((await sender.callsPerKey()).get(key)).toBe(3);
      expect(reclaimer.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
    });
  });
});
