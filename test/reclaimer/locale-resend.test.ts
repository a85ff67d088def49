import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { ReclaimerHarness } from './reclaimer-harness';

const db = useTestLedger();

describe('a kept message resent by the reclaimer', () => {
  it('keeps its language: the row\'s stored message is the German one, and the row still says de', async () => {
    const eventId = 'evt-reclaim-locale';
    // A sign-in code: its class (otp) resends a message whose first send may have gone out.
    const event = loginCodeEvent({ eventId, recipients: [{ recipientId: 'user-9', email: 'user@example.com', locale: 'de-AT', channels: ['email'] }] });
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'email', templateId: 'login-code' });
    // The sender's e-mail reaches the provider, then its invocation dies before it records the outcome.
    const sender = new SenderHarness({ ledger: db.ledger, wrapProvider: (outbox) => crashAfterFirst(outbox, 'send', 'hang') });
    expect(await invokeOrKill(sender.invoke(sqsRecord(JSON.stringify(event))))).toBe('killed');
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', locale: 'de' });

    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile, withoutLookup: true });
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect(reclaimer.metrics.get(METRIC.ReclaimedResent)).toBe(1);

    const subjects = (await sender.outbox()).map((line) => (line.message as { subject: string }).subject);
    expect(subjects).toEqual(['Ihr Anmeldecode', 'Ihr Anmeldecode']);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', locale: 'de' });
  });
});
