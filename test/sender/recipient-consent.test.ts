import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentKeyOf } from '../../functions/core/policy/consent';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { CONTACT_LIST, ConsentWorld } from '../support/consent-world';
import { ControlledClock } from '../support/controlled-clock';
import { orderShippedEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
const world = new ConsentWorld();
// Noon UTC: no quiet hours anywhere near (the default zone is UTC).
const clock = new ControlledClock(Date.parse('2026-11-30T12:00:00Z'));
beforeAll(async () => {
  await world.start(db, clock);
});
afterAll(async () => {
  await world.stop();
});

const sender = () => new SenderHarness({ ledger: db.ledger, clock, providers: world.providers, consent: world.consent });
const keyOf = (event: NotificationEvent, channel: 'email' | 'sms' = 'email') =>
  idempotencyKey({ eventId: event.eventId, recipientId: event.recipients[0]!.recipientId, channel, templateId: event.templateId });
const offers = (eventId: string, email: string) => weeklyOffersEvent({ eventId, recipients: [{ recipientId: `member-${email}`, email, channels: ['email'] }] });
const offersText = (eventId: string, phone: string) =>
  weeklyOffersEvent({ eventId, recipients: [{ recipientId: `member-${phone}`, phone, timeZone: 'UTC', channels: ['sms'] }] });
const sendsTo = (address: string) => world.ses.accepted().filter((e) => e.to.includes(address));
const textsTo = (number: string) => world.sns.accepted().filter((p) => p.target === number);

describe('bulk e-mail: one-click unsubscribe through SES subscription management', () => {
  it('a bulk e-mail carries the one-click headers through SES\'s mechanism (ListManagementOptions); a transactional one does not', async () => {
    const harness = sender();
    const bulk = offers('evt-headers-bulk', 'headers-bulk@example.com');
    const order = orderShippedEvent({ eventId: 'evt-headers-order', recipients: [{ recipientId: 'buyer-h', email: 'headers-order@example.com', channels: ['email'] }] });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(bulk)), sqsRecord(JSON.stringify(order))))).toEqual([]);

    expect(sendsTo('headers-bulk@example.com').map((e) => e.listManagementOptions)).toEqual([{ ContactListName: CONTACT_LIST, TopicName: 'marketing' }]);
    expect(sendsTo('headers-order@example.com').map((e) => e.listManagementOptions)).toEqual([undefined]);
    const mailbox = await world.mailbox();
    const delivered = (to: string) => mailbox.find((m) => m.destination.to.includes(to))!;
    const headers = (to: string) => Object.fromEntries((delivered(to).headers ?? []).map((h) => [h.name, h.value]));
    expect(headers('headers-bulk@example.com')).toMatchObject({
      'List-Unsubscribe': expect.stringMatching(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\/[0-9a-f-]{36}>$/),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    // SES put the same URL where the template shows the link.
    expect(delivered('headers-bulk@example.com').body.text).toContain(`Unsubscribe: ${headers('headers-bulk@example.com')['List-Unsubscribe']!.slice(1, -1)}`);
    expect(headers('headers-order@example.com')).not.toHaveProperty('List-Unsubscribe');
    expect(headers('headers-order@example.com')).not.toHaveProperty('List-Unsubscribe-Post');
  });

  it('an unsubscribed contact\'s next bulk e-mail ends SUPPRESSED Unsubscribed, without a call, and is not sent again on redelivery', async () => {
    const harness = sender();
    const address = 'unsubscribes@example.com';
    const first = offers('evt-unsub-first', address);
    await harness.invoke(sqsRecord(JSON.stringify(first)));
    // The recipient's mail client does the one-click unsubscribe; SES publishes the Subscription event.
    const header = (await world.mailbox()).find((m) => m.destination.to.includes(address))!.headers!.find((h) => h.name === 'List-Unsubscribe')!.value;
    expect(await world.oneClickUnsubscribe(header)).toBe(200);
    await world.deliverEvents();

    const next = offers('evt-unsub-next', address);
    const body = JSON.stringify(next);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(keyOf(next))).toMatchObject({
      state: 'SUPPRESSED',
      suppressionReason: 'Unsubscribed',
      failureReason: 'Unsubscribed: the recipient unsubscribed from topic marketing (ses-subscription)',
    });
    expect(failedIds(await harness.invoke(sqsRecord(body, undefined, { receiveCount: 2 })))).toEqual([]);
    expect(sendsTo(address)).toHaveLength(1); // the first e-mail only
    expect(harness.metrics.get(METRIC.Unsubscribed)).toBe(1);
    expect(harness.metrics.byDimensions.get('Suppressed|-|marketing|Unsubscribed')).toBe(1);
  });

  it('the same contact still gets its order updates: transactional e-mail is never stopped by an unsubscribe', async () => {
    const harness = sender();
    const order = orderShippedEvent({ eventId: 'evt-unsub-order', recipients: [{ recipientId: 'buyer-u', email: 'unsubscribes@example.com', channels: ['email'] }] });
    await harness.invoke(sqsRecord(JSON.stringify(order)));
    expect(await db.ledger.get(keyOf(order))).toMatchObject({ state: 'SENT' });
  });

  it('when SES reports the unsubscribe by bouncing a send (the stack had not heard of it): SUPPRESSED Unsubscribed, and the next one is not sent', async () => {
    const harness = sender();
    const address = 'bounced-unsubscribe@example.com';
    world.ses.contactList.unsubscribeDirectly(address, 'marketing'); // on SES's side only: no event reached the stack
    const first = offers('evt-bounce-first', address);
    await harness.invoke(sqsRecord(JSON.stringify(first)));
    expect(await db.ledger.get(keyOf(first))).toMatchObject({ state: 'SENT' }); // SES accepted the call...
    await world.deliverEvents(); // ...and bounced it
    expect(await db.ledger.get(keyOf(first))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'Unsubscribed', deliveryStatus: 'Bounce' });
    expect(world.statusMetrics.get(METRIC.Unsubscribed)).toBeGreaterThanOrEqual(1);

    const next = offers('evt-bounce-next', address);
    await harness.invoke(sqsRecord(JSON.stringify(next)));
    expect(await db.ledger.get(keyOf(next))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'Unsubscribed' });
    expect(sendsTo(address)).toHaveLength(1);
  });
});

describe('bulk texts: a number that replied STOP', () => {
  it('an opted-out number\'s next bulk text ends SUPPRESSED OptedOut when SNS reports it in the delivery log, and is not sent again', async () => {
    const harness = sender();
    const phone = '+14155550171';
    // SNS's answer to CheckIfPhoneNumberIsOptedOut is not available: the log is the only word (the check fails open).
    const checkless = { ...world.providers, sms: { send: world.providers.sms.send.bind(world.providers.sms) } };
    const noCheck = new SenderHarness({ ledger: db.ledger, clock, providers: checkless, consent: world.consent });
    await noCheck.invoke(sqsRecord(JSON.stringify(offersText('evt-stop-first', phone))));
    world.sns.optOuts.reply(phone, 'STOP');
    const second = offersText('evt-stop-second', phone);
    await noCheck.invoke(sqsRecord(JSON.stringify(second)));
    expect(textsTo(phone)).toHaveLength(2); // SNS accepts a text to an opted-out number...
    await world.deliverEvents(); // ...and logs it FAILURE "Phone number is opted out"
    expect(await db.ledger.get(keyOf(second, 'sms'))).toMatchObject({
      state: 'SUPPRESSED',
      suppressionReason: 'OptedOut',
      deliveryStatus: 'FAILURE',
      deliveryStatusDetail: 'OptedOut',
    });

    const third = offersText('evt-stop-third', phone);
    const body = JSON.stringify(third);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    expect(failedIds(await harness.invoke(sqsRecord(body, undefined, { receiveCount: 2 })))).toEqual([]);
    expect(await db.ledger.get(keyOf(third, 'sms'))).toMatchObject({
      state: 'SUPPRESSED',
      suppressionReason: 'OptedOut',
      failureReason: 'OptedOut: the number opted out of texts (sms-delivery-log)',
    });
    expect(textsTo(phone)).toHaveLength(2);
  });

  it('SNS is asked first (CheckIfPhoneNumberIsOptedOut): a number that opted out is never sent a bulk text, and the answer is kept', async () => {
    const harness = sender();
    const phone = '+14155550172';
    world.sns.optOuts.reply(phone, 'stop');
    const text = offersText('evt-check-first', phone);
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(text))))).toEqual([]);
    expect(await db.ledger.get(keyOf(text, 'sms'))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'OptedOut' });
    expect(textsTo(phone)).toHaveLength(0);
    expect(await world.consent.read(consentKeyOf({ channel: 'sms', to: phone, text: '' })!)).toMatchObject({ all: true, source: 'provider-check' });
  });

  it('an opted-out number still gets its one-time codes handed to SNS: consent never stops otp', async () => {
    const harness = sender();
    const phone = '+14155550172';
    const code = { ...weeklyOffersEvent(), eventId: 'evt-stop-otp', templateId: 'login-code', messageClass: 'otp', data: { code: '482913', expiresInMinutes: 10 }, recipients: [{ recipientId: 'u', phone, channels: ['sms' as const] }] };
    await harness.invoke(sqsRecord(JSON.stringify(code)));
    expect(await db.ledger.get(keyOf(code, 'sms'))).toMatchObject({ state: 'SENT' });
  });
});
