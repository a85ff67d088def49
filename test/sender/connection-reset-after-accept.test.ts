import { SESv2Client } from '@aws-sdk/client-sesv2';
import { describe, expect, it } from 'vitest';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { orderShippedEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { ControlledClock } from '../support/controlled-clock';

const db = useTestLedger();

/**
 * SES accepts the mail, then the connection resets before its answer: Node reports that as a plain
 * `Error` whose only mark is `code: 'ECONNRESET'` (not a TimeoutError). Reading it as "certainly not
 * sent" would send the mail again in every class; it must be ambiguous and go by class policy.
 */
function resettingSes(): { provider: SesEmailProvider; accepted: () => number } {
  let accepted = 0;
  const client = new SESv2Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    requestHandler: {
      handle: async () => {
        accepted += 1; // SES has the mail
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
    },
  });
  return { provider: new SesEmailProvider(client, { fromAddress: 'notifier@example.com', contactListName: 'notifier-test' }), accepted: () => accepted };
}

/** The seller's e-mail of the class: marketing is a bulk class, so its e-mail is this week's offers (a bulk template). */
function sellerEmail(eventId: string, messageClass: string) {
  const event =
    messageClass === 'marketing' ? weeklyOffersEvent({ eventId }) : orderShippedEvent({ eventId, messageClass, recipients: [orderShippedEvent().recipients[1]!] });
  return { body: JSON.stringify(event), key: idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: event.templateId }) };
}

describe('a connection reset after SES accepted is an unknown outcome, never "not sent"', () => {
  it('marketing: the reset is counted as ambiguous and ends UNKNOWN; no second mail on redelivery', async () => {
    const { provider, accepted } = resettingSes();
    const clock = new ControlledClock();
    const sender = new SenderHarness({ ledger: db.ledger, clock, providers: { email: provider, sms: provider, push: provider } });
    const { body, key } = sellerEmail('evt-reset-after-accept-marketing', 'marketing');

    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    clock.advance(1_000);
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);

    expect(accepted()).toBe(1);
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(sender.metrics.get(METRIC.TransientRetry)).toBe(0);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'UNKNOWN', failureReason: expect.stringMatching(/^OutcomeUnknown: /) });
  });

  it('otp: the next delivery resends as a possible duplicate (counted), not as a plain retry', async () => {
    const { provider, accepted } = resettingSes();
    const sender = new SenderHarness({ ledger: db.ledger, providers: { email: provider, sms: provider, push: provider } });
    const { body, key } = sellerEmail('evt-reset-after-accept-otp', 'otp');

    const first = sqsRecord(body);
    expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous' });
    await sender.invoke(sqsRecord(body));

    expect(accepted()).toBe(2);
    expect(sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
  });
});
