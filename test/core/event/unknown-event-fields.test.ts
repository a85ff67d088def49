import { describe, expect, it } from 'vitest';
import { NotificationEventSchema, parseNotificationBody } from '../../../functions/core/event/notification-event';
import { MAX_REPORTED_UNKNOWN_FIELDS, unknownEventFields } from '../../../functions/core/event/unknown-event-fields';
import { orderShippedEvent } from '../../support/events';

describe('unknown event fields (the defect: a misspelt messageclass or a misspelt recipient field disappeared without a word)', () => {
  it('names the fields the schema does not know, at the top and in a recipient, never their values', () => {
    const event = orderShippedEvent();
    const payload = {
      ...event,
      messageclass: 'transactional',
      recipients: event.recipients.map((r) => ({ ...r, langauge: 'de-DE' })),
    };
    expect(unknownEventFields(NotificationEventSchema, payload)).toEqual(['messageclass', 'recipients[].langauge']);
    expect(JSON.stringify(unknownEventFields(NotificationEventSchema, payload))).not.toContain('de-DE');
  });

  it('knows every field of the schema (a valid event has none)', () => {
    expect(unknownEventFields(NotificationEventSchema, orderShippedEvent())).toEqual([]);
  });

  it('reports a name that is long or odd as unprintable, each name once, and at most a few', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, i]));
    expect(unknownEventFields(NotificationEventSchema, { ...orderShippedEvent(), ...many })).toHaveLength(MAX_REPORTED_UNKNOWN_FIELDS);
    expect(unknownEventFields(NotificationEventSchema, { ...orderShippedEvent(), 'bob@example.com': 1, ['x'.repeat(65)]: 2 })).toEqual(['(unprintable name)']);
  });

  it('comes with the parsed event, after its envelope is removed', () => {
    const body = JSON.stringify({
      Type: 'Notification',
      TopicArn: 'arn:aws:sns:eu-west-1:123456789012:t',
      MessageId: 'm',
      Timestamp: '2026-11-29T12:00:00.000Z',
      Message: JSON.stringify({ ...orderShippedEvent(), priority: 'high' }),
    });
    expect(parseNotificationBody(body).unknownFields).toEqual(['priority']);
  });
});
