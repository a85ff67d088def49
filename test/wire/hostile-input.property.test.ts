import fc from 'fast-check';
import { expect, it } from 'vitest';
import { rowToItem } from '../../functions/adapters/dynamodb-ledger';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { itemBytes } from '../../local/item-bytes';
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
 * Lengths too (review defect 1): every field that reaches a row gets text below, at and far past its bound, and no
 * row grows past {@link ROW_BYTES_BOUND} whatever the producer sent: a row's size does not depend on the producer.
 * `npm test` runs the bounded size; `npm run check:hostile-input` sets HOSTILE_INPUT_RUNS for the long one.
 */
const RUNS = Number(process.env.HOSTILE_INPUT_RUNS ?? 150);
const SEED = process.env.HOSTILE_INPUT_SEED === undefined ? undefined : Number(process.env.HOSTILE_INPUT_SEED);

/**
 * The most a settled row may weigh, whatever the producer: ids at their maxima (event and recipient 256, template
 * 128, class 64, occurredAt 35 characters, a time zone 64), a provider's reason (at most 500) and the fixed fields.
 */
const ROW_BYTES_BOUND = 2_048;

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
  // Plain text at and around the length bounds of the fields (ids 256, template and type 128, class 64, zone 64,
  // occurredAt 35, a fraction's 9 digits) and far past them.
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('a', '7', 'Europe/Paris'), fc.constantFrom(8, 9, 10, 35, 36, 63, 64, 65, 127, 128, 129, 255, 256, 257, 5_000, 60_000)).map(([unit, length]) => unit.repeat(length).slice(0, length)) },
);

/** Where in an event a generated string goes. */
type Slot = (event: MutableEvent, text: string) => void;
type MutableEvent = { -readonly [K in keyof NotificationEvent]: NotificationEvent[K] } & { data: Record<string, unknown> };
const recipientSlot =
  (field: 'recipientId' | 'email' | 'phone' | 'pushEndpointArn' | 'timeZone' | 'locale', shape: (text: string) => string = (text) => text): Slot =>
  (event, text) => {
    const index = event.recipients.length - 1;
    event.recipients = event.recipients.map((r, i) => (i === index ? { ...r, [field]: shape(text) } : r));
  };
const SLOTS: Readonly<Record<string, Slot>> = {
  eventId: (event, text) => void (event.eventId = text),
  occurredAt: (event, text) => void (event.occurredAt = text),
  // A valid time whose fraction has as many digits as the text has characters (9 is the bound).
  'occurredAt fraction': (event, text) => void (event.occurredAt = `${event.occurredAt.slice(0, 19)}${text.length > 0 ? `.${'7'.repeat(text.length)}` : ''}Z`),
  timeZone: recipientSlot('timeZone'),
  // A real zone in another case: Intl takes any case (review defect 5).
  'timeZone spelling': recipientSlot('timeZone', (text) => ZONE_SPELLINGS[text.length % ZONE_SPELLINGS.length]!),
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

const ZONE_SPELLINGS = ['aMERICA/nEW_yORK', 'america/new_york', 'EUROPE/PARIS', 'utc', 'eTC/gmt+5', 'asia/KOLKATA'];

/** Whether any string or key of the event, as the slots left it, is ill-formed (two slots may write one field). */
function holdsIllFormed(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(holdsIllFormed);
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([key, inner]) => !key.isWellFormed() || holdsIllFormed(inner));
  return false;
}

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
      // A recipient's locale is never a reason to refuse (it falls back, counted), so its text is left out.
      const withoutLocale = { ...event, recipients: event.recipients.map(({ locale: _locale, ...recipient }) => recipient) };
      const illFormed = holdsIllFormed(withoutLocale) || (wrapper !== 'raw' && !wrapperText.isWellFormed());
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
          expect(itemBytes(rowToItem(row!)), `${channel} row bytes`).toBeLessThanOrEqual(ROW_BYTES_BOUND);
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


/**
 * Every producer field that reaches a row, at its bound, one past it and far past it (review defect 1: `occurredAt`
 * had none): past the bound the door refuses the event with its reason; at it, every row it writes stays within
 * {@link ROW_BYTES_BOUND}. All of them, not a sample: a field left out of the random draw would go unnoticed.
 */
const LENGTH_BOUNDS: ReadonlyArray<{ readonly field: string; readonly bound: number; readonly put: (event: MutableEvent, length: number) => void }> = [
  { field: 'eventId', bound: 256, put: (event, n) => void (event.eventId = `evt-${'e'.repeat(n - 4)}`) },
  { field: 'recipientId', bound: 256, put: (event, n) => recipientSlot('recipientId')(event, 'r'.repeat(n)) },
  { field: 'templateId', bound: 128, put: (event, n) => void (event.templateId = 't'.repeat(n)) },
  { field: 'messageClass', bound: 64, put: (event, n) => void (event.messageClass = 'c'.repeat(n)) },
  { field: 'type', bound: 128, put: (event, n) => void (event.type = 'y'.repeat(n)) },
  { field: 'occurredAt fraction digits', bound: 9, put: (event, n) => SLOTS['occurredAt fraction']!(event, 'x'.repeat(n)) },
  { field: 'occurredAt', bound: 35, put: (event, n) => void (event.occurredAt = `${event.occurredAt.slice(0, 19)}.${'1'.repeat(Math.max(1, n - 26))}+01:00`) },
  { field: 'email', bound: 320, put: (event, n) => recipientSlot('email')(event, `${'m'.repeat(n - 12)}@example.com`) },
  { field: 'phone', bound: 32, put: (event, n) => recipientSlot('phone')(event, `+${'1'.repeat(n - 1)}`) },
  { field: 'pushEndpointArn', bound: 1024, put: (event, n) => recipientSlot('pushEndpointArn')(event, `arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/${'a'.repeat(n - 51)}`) },
  { field: 'timeZone', bound: 64, put: (event, n) => recipientSlot('timeZone')(event, `Etc/${'Z'.repeat(n - 4)}`) },
  { field: 'a data value', bound: 4096, put: (event, n) => SLOTS['a data value']!(event, 'v'.repeat(n)) },
];
const LENGTH_CASES = LENGTH_BOUNDS.flatMap(({ field, bound, put }) =>
  [bound, bound + 1, 60_000].flatMap((length) => (['order-shipped', 'login-code'] as const).map((base) => ({ field, bound, length, base, put }))),
);

it.each(LENGTH_CASES)('$field at $length characters ($base; bound $bound): refused past its bound, a row within its bytes at it', async ({ bound, length, base, put }) => {
  run += 1;
  const seed = base === 'login-code' ? loginCodeEvent() : orderShippedEvent();
  const event: MutableEvent = { ...seed, eventId: `evt-length-${run}`, data: { ...seed.data } };
  put(event, length);
  const sender = rig.sender();
  const response = await sender.invoke(sqsRecord(bodyOf(event, 'raw', '')));
  expect(failedIds(response), 'retried').toEqual([]);
  const letters = sender.deadLetters.letters;
  if (length > bound) expect(['SchemaViolation', 'BodyTooLarge'], 'past its bound: refused at the door').toContain(letters[0]?.reason);
  for (const recipient of event.recipients) {
    for (const channel of recipient.channels) {
      const row = await db.ledger.get(idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId }));
      if (row) expect(itemBytes(rowToItem(row)), `${channel} row bytes`).toBeLessThanOrEqual(ROW_BYTES_BOUND);
    }
  }
}, 60_000);

it(`${Math.ceil(RUNS / 3)} events whose only hostile field is a recipient's locale (any JSON value) are all sent, in a variant the template has, the fallback counted`, async () => {
  const anyJson = fc.oneof(
    // At most 4,096 characters: the length-bound strings reach 60,000, and two recipients' of them make a body
    // past the 64 KiB limit, refused as BodyTooLarge for its size, not for its locale.
    { weight: 6, arbitrary: hostile.filter((text) => text.length <= 4_096) },
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
