import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../../functions/core/event/idempotency-key';
import { parseNotificationBody } from '../../../functions/core/event/notification-event';
import { fallbackEvent, fallbackKeyOf, fallbackPlanOf, packFallbackPlan, unpackFallbackPlan } from '../../../functions/core/fallback/fallback-plan';
import { fallbackRequestBody, parseFallbackRequest } from '../../../functions/core/fallback/fallback-request';
import { loginCodeEvent } from '../../support/events';

const recipient = { recipientId: 'r-1', pushEndpointArn: 'arn:aws:sns:us-east-1:123456789012:endpoint/APNS/app/1b2c', phone: '+14155550101', email: 'a@example.com', locale: 'de-AT', fallback: ['push', 'sms', 'email'] };
const { event } = parseNotificationBody(JSON.stringify({ ...loginCodeEvent(), recipients: [recipient] }));
const parsed = event.recipients[0]!;

describe('the plan a primary row keeps for its fallback', () => {
  it('keeps the rest of the chain and only its addresses (never the primary\'s own endpoint)', () => {
    const plan = fallbackPlanOf(event, parsed, parsed.fallback!)!;
    expect(plan.rest).toEqual(['sms', 'email']);
    expect(plan).toMatchObject({ phone: '+14155550101', email: 'a@example.com', locale: 'de-AT', data: event.data });
    expect(plan).not.toHaveProperty('pushEndpointArn');
  });

  it('keeps nothing for the last channel of a chain', () => {
    expect(fallbackPlanOf(event, parsed, ['email'])).toBeUndefined();
  });

  it('packs and unpacks to the same plan, and refuses a damaged value with a reason', () => {
    const plan = fallbackPlanOf(event, parsed, parsed.fallback!)!;
    expect(unpackFallbackPlan(packFallbackPlan(plan))).toEqual({ ok: true, plan });
    expect(unpackFallbackPlan(Uint8Array.of(1, 2, 3))).toMatchObject({ ok: false, reason: expect.stringMatching(/^FallbackPlanUnreadable/) });
    expect(unpackFallbackPlan(Uint8Array.of(9))).toMatchObject({ ok: false });
  });

  it('rebuilds an event whose one recipient is the rest of the chain, and whose first message has the fallback key', () => {
    const plan = fallbackPlanOf(event, parsed, parsed.fallback!)!;
    const row = { eventId: event.eventId, recipientId: 'r-1', templateId: event.templateId, messageClass: event.messageClass, occurredAt: event.occurredAt };
    const rebuilt = fallbackEvent(row, plan);
    // What the door would accept: the fallback goes through the same schema as any event.
    expect(parseNotificationBody(JSON.stringify(rebuilt)).event.recipients[0]).toMatchObject({ channels: [], fallback: ['sms', 'email'] });
    expect(fallbackKeyOf(row, plan)).toBe(idempotencyKey({ eventId: event.eventId, recipientId: 'r-1', channel: 'sms', templateId: event.templateId }));
  });
});

describe('the fallback request on the queue', () => {
  const key = 'a'.repeat(64);
  it('round-trips, and holds identifiers only', () => {
    expect(parseFallbackRequest(fallbackRequestBody(key))).toEqual({ notifierFallback: 1, primaryKey: key });
    expect(fallbackRequestBody(key)).toBe(`{"notifierFallback":1,"primaryKey":"${key}"}`);
  });
  it('leaves a notification event to its own parser, and calls a malformed request invalid', () => {
    expect(parseFallbackRequest(JSON.stringify(loginCodeEvent()))).toBeUndefined();
    expect(parseFallbackRequest('{"notifierFallback":1,"primaryKey":"short"}')).toBe('invalid');
    expect(parseFallbackRequest('{"notifierFallback":2,"primaryKey":"' + key + '"}')).toBe('invalid');
  });
});
