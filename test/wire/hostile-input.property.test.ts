import fc from 'fast-check';
import { expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/idempotency-key';
import { METRIC } from '../../functions/core/metric-names';
import type { NotificationEvent } from '../../functions/core/notification-event';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { AMBIGUITY_METRICS, sendRequests } from './one-message';
import { useWireRig } from './wire-harness';

/**
 * The door under hostile text: generated strings of the whole UTF-16 range (lone surrogates and control
 * characters included) in every field a producer controls (ids, addresses, template and class, data keys and
 * values, the SNS and EventBridge wrappers), through the real sender, the real SES v2 and SNS clients to the
 * local services and the real ledger on dynalite. Every record ends in its one receive: its messages SENT,
 * FAILED with a reason or SUPPRESSED, or the record dead-lettered with a reason. None is retried for its content,
 * no invocation throws, no unknown outcome is counted, and nothing goes to an address the event does not hold.
 * `npm test` runs the bounded size; `npm run check:hostile-input` sets HOSTILE_INPUT_RUNS for the long one.
 */
const RUNS = Number(process.env.HOSTILE_INPUT_RUNS ?? 150);
const SEED = process.env.HOSTILE_INPUT_SEED === undefined ? undefined : Number(process.env.HOSTILE_INPUT_SEED);

const db = useTestLedger();
const rig = useWireRig(db);

/** One UTF-16 unit or code point: any code point, a lone surrogate of either half, or a control character. */
const hostileUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  { weight: 2, arbitrary: fc.constantFrom(...'\u0000\u0007\t\n\r\u001b\u007f\u0085\u009f\u2028\ufeff\ufffe') },
);
/** Hostile text: short and long, valid-looking with a hostile tail, the known troublemakers. */
const hostile = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: hostileUnit, maxLength: 24 }) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('1001', 'DHL', 'buyer-17', 'otp'), fc.string({ unit: hostileUnit, minLength: 1, maxLength: 3 })).map(([a, b]) => a + b) },
  { weight: 1, arbitrary: fc.string({ unit: hostileUnit, minLength: 200, maxLength: 3_000 }) },
  { weight: 1, arbitrary: fc.constantFrom('order 1001 \ud83d', '\udc00', '😀', '', ' ', '__proto__', 'constructor', 'a\nb', 'x\u0000y') },
);

/** Where in an event a generated string goes. */
type Slot = (event: MutableEvent, text: string) => void;
type MutableEvent = { -readonly [K in keyof NotificationEvent]: NotificationEvent[K] } & { data: Record<string, unknown> };
const recipientSlot =
  (field: 'recipientId' | 'email' | 'phone' | 'pushEndpointArn' | 'locale'): Slot =>
  (event, text) => {
    const index = event.recipients.length - 1;
    event.recipients = event.recipients.map((r, i) => (i === index ? { ...r, [field]: text } : r));
  };
const SLOTS: Readonly<Record<string, Slot>> = {
  eventId: (event, text) => void (event.eventId = text),
  type: (event, text) => void (event.type = text),
  templateId: (event, text) => void (event.templateId = text),
  messageClass: (event, text) => void (event.messageClass = text),
  'a data value': (event, text) => {
    const field = Object.keys(event.data)[0]!;
    event.data = { ...event.data, [field]: text };
  },
  'a data key': (event, text) => void (event.data = { ...event.data, [text]: 'value' }),
  recipientId: recipientSlot('recipientId'),
  email: recipientSlot('email'),
  phone: recipientSlot('phone'),
  pushEndpointArn: recipientSlot('pushEndpointArn'),
  // The one field whose ill-formed text is never refused: a message is not dropped for its language tag.
  locale: recipientSlot('locale'),
};

/** The body: the event raw, or wrapped as SNS or EventBridge would, with hostile text in a wrapper field. */
type Wrapper = 'raw' | 'sns' | 'eventbridge';
function bodyOf(event: unknown, wrapper: Wrapper, wrapperText: string): string {
  if (wrapper === 'sns') {
    return JSON.stringify({
      Type: 'Notification',
      MessageId: 'sns-id',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:events',
      Subject: wrapperText,
      Message: JSON.stringify(event),
      MessageAttributes: { tenant: { Type: 'String', Value: wrapperText } },
      Timestamp: '2026-11-29T11:59:31.000Z',
    });
  }
  if (wrapper === 'eventbridge') {
    return JSON.stringify({
      version: '0',
      id: 'eventbridge-id',
      'detail-type': wrapperText,
      source: 'shop',
      account: '123456789012',
      time: '2026-11-29T11:59:31Z',
      region: 'us-east-1',
      resources: [],
      detail: event,
    });
  }
  return JSON.stringify(event);
}

const scenario = fc.record({
  base: fc.constantFrom('order-shipped', 'login-code'),
  // Some runs keep every field valid but a data value, so that hostile text reaches the providers too.
  slots: fc.oneof(fc.constant<string[]>(['a data value']), fc.uniqueArray(fc.constantFrom(...Object.keys(SLOTS)), { minLength: 1, maxLength: 4 })),
  texts: fc.array(hostile, { minLength: 4, maxLength: 4 }),
  wrapper: fc.constantFrom<Wrapper>('raw', 'raw', 'sns', 'eventbridge'),
  wrapperText: fc.oneof(fc.constant('shop'), hostile),
});

let run = 0;
it(`${RUNS} events with hostile text in every producer field end in one receive, each with a reason, none retried for its content`, async () => {
  const outcomes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(scenario, async ({ base, slots, texts, wrapper, wrapperText }) => {
      run += 1;
      const seed = base === 'login-code' ? loginCodeEvent() : orderShippedEvent();
      const event: MutableEvent = { ...seed, eventId: `evt-hostile-${run}`, data: { ...seed.data } };
      slots.forEach((slot, i) => SLOTS[slot]!(event, texts[i]!));
      const body = bodyOf(event, wrapper, wrapperText);
      const sender = rig.sender();
      const sentBefore = { ses: rig.ses.accepted().length, sns: rig.sns.accepted().length };
      const requestsBefore = sendRequests(rig);
      const record = sqsRecord(body);

      const response = await sender.invoke(record);

      expect(failedIds(response), 'retried').toEqual([]);
      for (const metric of [...AMBIGUITY_METRICS, METRIC.TransientRetry, METRIC.LedgerError]) expect(sender.metrics.get(metric), metric).toBe(0);
      const letters = sender.deadLetters.letters;
      // Ill-formed text anywhere a producer put it is refused at the door (unless the body is refused for its size first).
      const illFormed =
        texts.slice(0, slots.length).some((text, i) => slots[i] !== 'locale' && !text.isWellFormed()) || (wrapper !== 'raw' && !wrapperText.isWellFormed());
      if (illFormed) expect(['SchemaViolation', 'BodyTooLarge'], 'ill-formed text is dead-lettered').toContain(letters[0]?.reason);
      if (letters.length > 0) {
        expect(letters).toHaveLength(1);
        expect(letters[0]!.detail.length, 'a dead letter names its reason').toBeGreaterThan(0);
        expect(letters[0]!.detail.isWellFormed(), 'the reason is well-formed text').toBe(true);
        expect(sendRequests(rig) - requestsBefore, 'a refused event sends nothing').toBe(0);
        outcomes.set(`dead-lettered ${letters[0]!.reason}`, (outcomes.get(`dead-lettered ${letters[0]!.reason}`) ?? 0) + 1);
        return;
      }
      const addresses = new Set<string>();
      for (const recipient of event.recipients) {
        for (const channel of recipient.channels) {
          const row = await db.ledger.get(idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId }));
          expect(row?.state === 'SENT' || row?.state === 'FAILED' || row?.state === 'SUPPRESSED', `${channel}: ${row?.state}`).toBe(true);
          if (row?.state !== 'SENT') expect(row?.failureReason, `${channel} ${row?.state} with a reason`).toBeTruthy();
          // Whatever the locale held, a message of a known template is written in one of its variants.
          if (row?.state === 'SENT') expect(['en', 'de'], 'the locale a sent message was written in').toContain(row.locale);
          outcomes.set(`${channel} ${row?.state}`, (outcomes.get(`${channel} ${row?.state}`) ?? 0) + 1);
        }
        for (const address of [recipient.email, recipient.phone, recipient.pushEndpointArn]) if (address !== undefined) addresses.add(address);
      }
      // Nothing went anywhere the event does not name.
      const destinations = [...rig.ses.accepted().slice(sentBefore.ses).flatMap((mail) => mail.to), ...rig.sns.accepted().slice(sentBefore.sns).map((p) => p.target)];
      for (const destination of destinations) expect(addresses.has(destination), 'a destination of the event').toBe(true);
    }),
    { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
  );
  console.log(`hostile input: ${RUNS} events; ${[...outcomes].map(([what, n]) => `${what} ${n}`).join(', ')}`);
  // The property says something only if hostile text reached each end: a refusal, a FAILED message and a send.
  expect([...outcomes.keys()].some((what) => what.startsWith('dead-lettered'))).toBe(true);
  expect([...outcomes.keys()].some((what) => what.endsWith('FAILED'))).toBe(true);
  expect([...outcomes.keys()].some((what) => what.endsWith('SENT'))).toBe(true);
}, 600_000);


it(`${Math.ceil(RUNS / 3)} events whose only hostile field is a recipient's locale (any JSON value) are all sent, in a variant the template has, the fallback counted`, async () => {
  const anyJson = fc.oneof(
    { weight: 6, arbitrary: hostile },
    { weight: 2, arbitrary: fc.constantFrom('de-AT', 'DE-at', 'fr-CA', 'zh-Hant-TW', 'de-AT-u-nu-arab', 'en-GB-oed', 'i-klingon', 'x-private', 'de--AT', 'root') },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 })) },
  );
  await fc.assert(
    fc.asyncProperty(anyJson, fc.constantFrom('order-shipped', 'login-code'), async (locale, base) => {
      run += 1;
      const seed = base === 'login-code' ? loginCodeEvent() : orderShippedEvent();
      const event = { ...seed, eventId: `evt-hostile-locale-${run}`, recipients: seed.recipients.map((r) => ({ ...r, locale })) };
      const sender = rig.sender();
      const response = await sender.invoke(sqsRecord(JSON.stringify(event)));
      expect(failedIds(response), 'retried').toEqual([]);
      expect(sender.deadLetters.letters, 'refused for its locale').toEqual([]);
      let messages = 0;
      for (const recipient of event.recipients) {
        for (const channel of recipient.channels) {
          messages += 1;
          const row = await db.ledger.get(idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId }));
          expect(row?.state, `${channel} ${row?.failureReason ?? ''}`).toBe('SENT');
          expect(['en', 'de']).toContain(row?.locale);
        }
      }
      // Every message not written in de came to en by a fallback, counted once.
      const german = typeof locale === 'string' && locale.length <= 64 && (() => {
        try {
          return new Intl.Locale(Intl.getCanonicalLocales(locale)[0]!).language === 'de';
        } catch {
          return false;
        }
      })();
      expect(sender.metrics.get(METRIC.LocaleFallback), 'fallbacks counted').toBe(german ? 0 : messages);
    }),
    { numRuns: Math.ceil(RUNS / 3), ...(SEED === undefined ? {} : { seed: SEED }) },
  );
}, 600_000);
