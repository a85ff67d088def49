import { describe, expect, it } from 'vitest';
import { repositoryTemplates } from '../../../functions/adapters/template-directory';
import { buildMessageClassRegistry } from '../../../functions/core/policy/message-class';
import { quietHoursDeferral } from '../../../functions/core/policy/quiet-hours-deferral';
import { packRequest, unpackRequest } from '../../../functions/core/ledger/stored-request';
import { planMessages } from '../../../functions/delivery/message-plan';
import { weeklyOffersEvent } from '../../support/events';

/** Marketing held on both channels it sends: e-mail and text. */
const marketing = buildMessageClassRegistry(
  JSON.stringify([{ name: 'marketing', onAmbiguous: 'give-up', bulk: true, quietHours: { start: '21:00', end: '08:00', channels: ['email', 'sms'] } }]),
).get('marketing')!;
/** 03:00 in Los Angeles (PST, UTC-8) is 11:00 UTC: daytime in the stack's zone. */
const THREE_AM_LA = Date.parse('2026-11-30T11:00:00Z');
const EIGHT_AM_LA = Date.parse('2026-11-30T16:00:00Z');

function plannedMessages() {
  const event = weeklyOffersEvent({
    recipients: [{ recipientId: 'member-la', email: 'member@example.com', phone: '+14155550199', timeZone: 'America/Los_Angeles', channels: ['email', 'sms'] }],
  });
  return planMessages(event, marketing, repositoryTemplates()).map((plan) => {
    if (!plan.prepared.ok) throw new Error(plan.prepared.reason);
    return plan.prepared.request.message;
  });
}

describe("quiet hours on e-mail ignore the recipient's own timeZone (defect: the plan dropped it for e-mail)", () => {
  it('a class holding e-mail and texts holds both at 03:00 in the recipient\'s zone, until 08:00 there', () => {
    const where = { countries: undefined, defaultTimeZone: 'UTC' };
    const held = plannedMessages().map((message) => ({ channel: message.channel, deferral: quietHoursDeferral(marketing, message, where, THREE_AM_LA) }));
    expect(held).toEqual([
      { channel: 'email', deferral: { untilMs: EIGHT_AM_LA, zones: { zones: ['America/Los_Angeles'], source: 'recipient' } } },
      { channel: 'sms', deferral: { untilMs: EIGHT_AM_LA, zones: { zones: ['America/Los_Angeles'], source: 'recipient' } } },
    ]);
  });

  it("an e-mail's zone is kept with the message a row stores, so the reclaimer holds it too", () => {
    const email = plannedMessages().find((message) => message.channel === 'email')!;
    const packed = packRequest(email);
    if (!packed.ok) throw new Error(packed.reason);
    expect(unpackRequest(packed.packed)).toMatchObject({ ok: true, message: { channel: 'email', timeZone: 'America/Los_Angeles' } });
  });
});
