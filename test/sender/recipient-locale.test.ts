import { describe, expect, it } from 'vitest';
import { readTemplateFiles, DEFAULT_TEMPLATES_DIR } from '../../functions/adapters/template-directory';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { buildTemplateRegistry } from '../../functions/core/template-checks/template-registry';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/** The order-shipped e-mail to one buyer who asks for `locale` (as given: any JSON value). */
function buyerEmail(eventId: string, locale: unknown): NotificationEvent {
  return orderShippedEvent({ eventId, recipients: [{ recipientId: 'buyer-17', email: 'buyer@example.com', locale, channels: ['email'] }] });
}

const keyOf = (eventId: string, templateId = 'order-shipped') => idempotencyKey({ eventId, recipientId: 'buyer-17', channel: 'email', templateId });

async function sendOnce(harness: SenderHarness, event: NotificationEvent, receiveCount = 1) {
  expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event), `m-${event.eventId}`, { receiveCount })))).toEqual([]);
}

const fallbacks = (harness: SenderHarness, reason: string) => harness.metrics.byDimensions.get(`LocaleFallback|email|transactional|${reason}`) ?? 0;

describe('every recipient in their own language, through the real sender and ledger', () => {
  it('de-AT gets the de variant, and the row records de', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    await sendOnce(harness, buyerEmail('evt-locale-de-at', 'de-AT'));
    const [line] = await harness.outbox();
    expect(line!.message).toMatchObject({ channel: 'email', subject: 'Ihre Bestellung 1001 wurde versandt' });
    expect(await db.ledger.get(keyOf('evt-locale-de-at'))).toMatchObject({ state: 'SENT', locale: 'de' });
    expect(harness.metrics.get(METRIC.LocaleFallback)).toBe(0);
  });

  it('fr-CA, with no French variant, gets the default (en), counted as no-variant', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    await sendOnce(harness, buyerEmail('evt-locale-fr-ca', 'fr-CA'));
    const [line] = await harness.outbox();
    expect(line!.message).toMatchObject({ subject: 'Your order 1001 has shipped' });
    expect(await db.ledger.get(keyOf('evt-locale-fr-ca'))).toMatchObject({ state: 'SENT', locale: 'en' });
    expect(fallbacks(harness, 'no-variant')).toBe(1);
  });

  it.each([['de_AT'], [42], ['x'.repeat(5000)]])('an ill-formed or too long tag (%#) gets the default, is counted, and is sent', async (locale) => {
    const harness = new SenderHarness({ ledger: db.ledger });
    const eventId = `evt-locale-bad-${typeof locale === 'string' ? locale.length : locale}`;
    await sendOnce(harness, buyerEmail(eventId, locale));
    expect(harness.deadLetters.letters).toEqual([]);
    expect((await harness.outbox()).map((l) => (l.message as { subject: string }).subject)).toEqual(['Your order 1001 has shipped']);
    expect(await db.ledger.get(keyOf(eventId))).toMatchObject({ state: 'SENT', locale: 'en' });
    expect(fallbacks(harness, 'ill-formed') + fallbacks(harness, 'too-long')).toBe(1);
  });

  it('a recipient without a locale gets the default, counted as missing', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    await sendOnce(harness, buyerEmail('evt-locale-none', undefined));
    expect(fallbacks(harness, 'missing')).toBe(1);
  });

  it('the same event redelivered with another locale sends nothing new: one message, in the first locale', async () => {
    const harness = new SenderHarness({ ledger: db.ledger });
    await sendOnce(harness, buyerEmail('evt-locale-changed', 'de-AT'));
    // The producer corrects the recipient's language and publishes the same event again.
    await sendOnce(harness, buyerEmail('evt-locale-changed', 'en-GB'), 2);
    await sendOnce(harness, buyerEmail('evt-locale-changed', 'fr'), 1);
    const lines = await harness.outbox();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatchObject({ subject: 'Ihre Bestellung 1001 wurde versandt' });
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(2);
    expect(await db.ledger.get(keyOf('evt-locale-changed'))).toMatchObject({ state: 'SENT', locale: 'de' });
  });
});

describe('values written in the recipient\'s locale and time zone', () => {
  const receipt = {
    name: 'receipt.json',
    text: JSON.stringify({
      fields: {
        total: { maxLength: 24, format: 'currency', currency: 'EUR' },
        paidAt: { maxLength: 48, format: 'datetime' },
      },
      email: { subject: 'Receipt', text: 'You paid {{total}} on {{paidAt}}.' },
    }),
  };
  const receiptDe = { name: 'receipt/de.json', text: JSON.stringify({ email: { subject: 'Beleg', text: 'Sie haben am {{paidAt}} {{total}} bezahlt.' } }) };
  const templates = buildTemplateRegistry([...readTemplateFiles(DEFAULT_TEMPLATES_DIR), receipt, receiptDe]);

  it('an amount and a date: Austrian German in Vienna, American English in New York, and UTC named when no zone is given', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, templates });
    const event: NotificationEvent = {
      ...orderShippedEvent({ eventId: 'evt-receipt-1' }),
      templateId: 'receipt',
      data: { total: '1234.50', paidAt: '2026-03-01T17:30:00Z' },
      recipients: [
        { recipientId: 'at', email: 'at@example.com', locale: 'de-AT', timeZone: 'Europe/Vienna', channels: ['email'] },
        { recipientId: 'us', email: 'us@example.com', locale: 'en-US', timeZone: 'America/New_York', channels: ['email'] },
        { recipientId: 'nz', email: 'nz@example.com', locale: 'en', channels: ['email'] },
      ],
    };
    await sendOnce(harness, event);
    const texts = new Map((await harness.outbox()).map((line) => [line.message.to, line.message.text]));
    // Intl's own spacing: a no-break space (U+00A0) after the Austrian € (V8 writes a plain space before PM).
    expect(texts.get('at@example.com')).toBe('Sie haben am 1. März 2026 um 18:30 €\u00a01.234,50 bezahlt.');
    expect(texts.get('us@example.com')).toBe('You paid €1,234.50 on March 1, 2026 at 12:30 PM.');
    expect(texts.get('nz@example.com')).toBe('You paid €1,234.50 on March 1, 2026 at 5:30 PM UTC.');
  });

  it('a value of the wrong kind fails the message with a reason that names the field and its format, never the value', async () => {
    const harness = new SenderHarness({ ledger: db.ledger, templates });
    const event: NotificationEvent = {
      ...orderShippedEvent({ eventId: 'evt-receipt-2' }),
      templateId: 'receipt',
      data: { total: 'twelve euros', paidAt: '2026-03-01T17:30:00Z' },
      recipients: [{ recipientId: 'buyer-17', email: 'at@example.com', channels: ['email'] }],
    };
    await sendOnce(harness, event);
    expect(await db.ledger.get(keyOf('evt-receipt-2', 'receipt'))).toMatchObject({
      state: 'FAILED',
      failureReason: 'InvalidTemplateField: template "receipt" field total is not a number (format currency: a JSON number or a decimal string such as "12.50")',
    });
  });
});

describe('a message released unsent keeps the language of its first claim', () => {
  it('a redelivery with another locale takes over the released row and sends it in the row\'s locale, not the new one', async () => {
    let calls = 0;
    const harness = new SenderHarness({
      ledger: db.ledger,
      // The first call is refused for the provider's pace (certainly not sent): the claim is handed back.
      wrapProvider: (outbox) => ({
        send: async (request, signal) => (++calls === 1 ? { kind: 'transient', cause: 'throttled', reason: 'Throttling: slow down' } : outbox.send(request, signal)),
      }),
    });
    const first = buyerEmail('evt-locale-released', 'de-AT');
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(first), 'm-released', { receiveCount: 1 })))).toEqual(['m-released']);
    expect(await db.ledger.get(keyOf('evt-locale-released'))).toMatchObject({ state: 'PENDING', lastRelease: 'transient', locale: 'de' });
    harness.clock.advance(60_000);
    await sendOnce(harness, buyerEmail('evt-locale-released', 'en-GB'), 2);
    const lines = await harness.outbox();
    expect(lines.map((line) => (line.message as { subject: string }).subject)).toEqual(['Ihre Bestellung 1001 wurde versandt']);
    expect(await db.ledger.get(keyOf('evt-locale-released'))).toMatchObject({ state: 'SENT', locale: 'de' });
  });
});
