import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../../functions/core/errors';
import { parseNotificationBody } from '../../../functions/core/event/notification-event';
import { loginCodeEvent } from '../../support/events';

const base = loginCodeEvent();
const withRecipient = (recipient: Record<string, unknown>) => JSON.stringify({ ...base, recipients: [{ recipientId: 'r-1', ...recipient }] });

function refusal(body: string): string {
  try {
    parseNotificationBody(body);
  } catch (error) {
    if (!(error instanceof InvalidEventError)) throw error;
    return `${error.reason}: ${error.detail}`;
  }
  throw new Error('the body was accepted');
}

describe('a recipient\'s fallback list at the door', () => {
  it('accepts a chain with channels left out, and reads channels as empty', () => {
    const { event } = parseNotificationBody(withRecipient({ pushEndpointArn: 'arn:x', phone: '+14155550101', email: 'a@example.com', fallback: ['push', 'sms', 'email'] }));
    expect(event.recipients[0]).toMatchObject({ channels: [], fallback: ['push', 'sms', 'email'] });
  });

  it('accepts channels and a chain side by side when they share no channel', () => {
    const { event } = parseNotificationBody(withRecipient({ email: 'a@example.com', phone: '+14155550101', channels: ['email'], fallback: ['sms'] }));
    expect(event.recipients[0]).toMatchObject({ channels: ['email'], fallback: ['sms'] });
  });

  it('refuses a channel in both lists, with the reason', () => {
    expect(refusal(withRecipient({ email: 'a@example.com', phone: '+14155550101', channels: ['email'], fallback: ['sms', 'email'] }))).toMatch(
      /^SchemaViolation: recipients\.0\.fallback: a channel is in both channels and fallback/,
    );
  });

  it('refuses an unknown channel in the chain', () => {
    expect(refusal(withRecipient({ email: 'a@example.com', fallback: ['pigeon', 'email'] }))).toMatch(/^SchemaViolation: recipients\.0\.fallback\.0: /);
  });

  it('refuses a chain channel without its address, naming the field, never a value', () => {
    const reason = refusal(withRecipient({ pushEndpointArn: 'arn:x', fallback: ['push', 'email'] }));
    expect(reason).toMatch(/^SchemaViolation: recipients\.0\.fallback: a fallback channel has no address/);
  });

  it('refuses a chain that repeats a channel, and a recipient with neither list', () => {
    expect(refusal(withRecipient({ email: 'a@example.com', fallback: ['email', 'email'] }))).toMatch(/fallback must not repeat a channel/);
    expect(refusal(withRecipient({ email: 'a@example.com' }))).toMatch(/channels must not be empty unless fallback is given/);
    expect(refusal(withRecipient({ email: 'a@example.com', channels: [] }))).toMatch(/channels must not be empty unless fallback is given/);
  });
});
