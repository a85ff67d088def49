import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../functions/core/errors';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { loadStatusConfig } from '../../functions/status/status-config';
import { checkTemplateFiles } from '../../functions/core/template-checks/template-registry';
import { loadReclaimerLimits } from '../../functions/reclaimer/reclaimer-config';
import { statusFromSesEvent } from '../../functions/status/ses-event';
import { statusFromSmsDeliveryLog } from '../../functions/status/sms-delivery-log';
import { loginCodeEvent } from '../support/events';

/**
 * The functions validate with valibot through `functions/core/schema.ts`, which words every message
 * itself (valibot's own quote the refused value). These are what an operator reads in a failed cold
 * start or a dead letter's detail, so they are pinned word for word.
 */
function thrown(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    return error instanceof InvalidEventError ? error.detail : (error as Error).message;
  }
  throw new Error('nothing was thrown');
}

describe('validation messages say what is wrong, in words', () => {
  it('in the sender configuration: each variable with its bound', () => {
    expect(
      thrown(() =>
        loadSenderConfig({ LEDGER_TABLE_NAME: 'x', FUNCTION_TIMEOUT_SECONDS: '1.5', CLAIM_TIMEOUT_SECONDS: '-3', MAX_CONCURRENT_SENDS: '999', DELIVERY_MODE: 'sms' }),
      ),
    ).toBe(
      'Invalid sender configuration: LEDGER_TABLE_NAME: Too small: expected length to be >=3; ' +
        'FUNCTION_TIMEOUT_SECONDS: Invalid input: expected integer; CLAIM_TIMEOUT_SECONDS: Too small: expected number to be >0; ' +
        'DELIVERY_MODE: Invalid option: expected one of "aws"|"outbox"; MAX_CONCURRENT_SENDS: Too big: expected number to be <=256',
    );
  });

  it('in an event: each field by path, never its value', () => {
    const event = { ...loginCodeEvent(), eventId: '', occurredAt: '2026-11-29T12:00:00', recipients: [{ recipientId: 'r', channels: ['fax'] }] };
    expect(thrown(() => parseNotificationBody(JSON.stringify(event)))).toBe(
      'eventId: Too small: expected length to be >=1; occurredAt: Invalid ISO datetime; ' +
        'recipients.0.channels.0: Invalid option: expected one of "email"|"sms"|"push"',
    );
  });

  it('in an envelope, a message class, the reclaimer limits and the status configuration', () => {
    const sns = { Type: 'Notification', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t', Message: '{}', MessageId: 'm', Timestamp: 'soon' };
    expect(thrown(() => parseNotificationBody(JSON.stringify(sns)))).toBe('SNS envelope: Timestamp: Invalid ISO datetime');
    expect(thrown(() => buildMessageClassRegistry('[{"name":"slow","onAmbiguous":"lookup","evidenceWaitSeconds":1.5}]'))).toBe(
      'MESSAGE_CLASSES is invalid at 0.evidenceWaitSeconds: Invalid input: expected integer',
    );
    expect(
      thrown(() => loadReclaimerLimits({ RECLAIMER_MAX_ROWS_PER_RUN: '0' }, { functionTimeoutMs: 60_000, sendTimeoutMs: 10_000, maxConcurrentSends: 4 })),
    ).toBe('Invalid reclaimer configuration: RECLAIMER_MAX_ROWS_PER_RUN: Too small: expected number to be >0');
    expect(thrown(() => loadStatusConfig({ LEDGER_TABLE_NAME: '  ab ' }))).toBe('Invalid status configuration: LEDGER_TABLE_NAME must name the ledger table');
    expect(loadStatusConfig({ LEDGER_TABLE_NAME: ' ledger ' })).toEqual({ tableName: 'ledger' });
  });

  it('for a missing variable, a value of the wrong type or none of a union, an unknown key and a bad field name', () => {
    expect(thrown(() => loadSenderConfig({ FUNCTION_TIMEOUT_SECONDS: 'soon', CLAIM_TIMEOUT_SECONDS: '60', DELIVERY_MODE: 'outbox', OUTBOX_FILE: '/tmp/o' }))).toBe(
      'Invalid sender configuration: LEDGER_TABLE_NAME: Required; FUNCTION_TIMEOUT_SECONDS: Invalid input: expected number',
    );
    const event = { ...loginCodeEvent(), type: 7, data: { code: { digits: 6 } }, recipients: 'user-9' };
    expect(thrown(() => parseNotificationBody(JSON.stringify(event)))).toBe(
      'type: Invalid input: expected string; data.code: Invalid input: expected string|number|boolean|null; recipients: Invalid input: expected array',
    );
    const template = { fields: { 'order-id': { maxLength: 8 } }, sms: { text: 'Order shipped', maxSegment: 2 } };
    expect(checkTemplateFiles([{ name: 'shipped.json', text: JSON.stringify(template) }]).problems).toEqual([
      { file: 'shipped.json', path: 'fields.order-id', message: 'field names are letters, digits and _ (not first), at most 64' },
      { file: 'shipped.json', path: 'sms.maxSegment', message: 'Unrecognized key' },
    ]);
  });

  it('across variables: the delivery mode and the queue trio, once the variables they read are valid', () => {
    const valid = { LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: '30', CLAIM_TIMEOUT_SECONDS: '60', EMAIL_FROM: 'n@shop.test', DEAD_LETTER_QUEUE_URL: 'q' };
    expect(thrown(() => loadSenderConfig({ ...valid, CLAIM_TIMEOUT_SECONDS: '0', EMAIL_FROM: ' ', QUEUE_VISIBILITY_TIMEOUT_SECONDS: '60' }))).toBe(
      'Invalid sender configuration: CLAIM_TIMEOUT_SECONDS: Too small: expected number to be >0; EMAIL_FROM: is required when DELIVERY_MODE=aws; ' +
        "QUEUE_MAX_RECEIVE_COUNT: is required with QUEUE_VISIBILITY_TIMEOUT_SECONDS (the queue's redelivery is described by all three); " +
        "QUEUE_RETENTION_SECONDS: is required with QUEUE_VISIBILITY_TIMEOUT_SECONDS (the queue's redelivery is described by all three)",
    );
    expect(thrown(() => loadSenderConfig({ ...valid, DELIVERY_MODE: 'Outbox', QUEUE_MAX_RECEIVE_COUNT: '0' }))).toBe(
      'Invalid sender configuration: DELIVERY_MODE: Invalid option: expected one of "aws"|"outbox"; QUEUE_MAX_RECEIVE_COUNT: Too small: expected number to be >0',
    );
    expect(thrown(() => loadSenderConfig(null as unknown as Record<string, string>))).toBe('Invalid sender configuration: (root): Invalid input: expected object');
  });

  it('in an event whose recipients are not all objects with channels: each refused for that', () => {
    expect(thrown(() => parseNotificationBody(JSON.stringify({ ...loginCodeEvent(), recipients: ['user-9', { recipientId: 'user-9' }] })))).toBe(
      // channels may be left out when fallback is given (issue 46): the refusal says so.
      'recipients.0: Invalid input: expected object; recipients.1.channels: channels must not be empty unless fallback is given',
    );
    expect(thrown(() => parseNotificationBody(JSON.stringify({ ...loginCodeEvent(), recipients: [{ recipientId: 'a', channels: 'sms' }] })))).toBe(
      'recipients.0.channels: Invalid input: expected array',
    );
  });

  it("in the status function: an SES event's or an SMS log line's first problem", () => {
    expect(statusFromSesEvent({ eventType: 'Delivery', mail: { timestamp: '2026-11-29T12:00:00Z' } })).toEqual({
      invalid: 'not an SES event: mail.messageId: Required',
    });
    expect(statusFromSesEvent([])).toEqual({ invalid: 'not an SES event: (root): Invalid input: expected object' });
    expect(statusFromSmsDeliveryLog(JSON.stringify({ notification: { messageId: 'm' }, status: 'DELIVERED' }), 0)).toEqual({
      invalid: 'not an SNS SMS delivery log: status: Invalid option: expected one of "SUCCESS"|"FAILURE"',
    });
  });
});

describe('validation messages never repeat the refused value', () => {
  const EMAIL = 'bob.secret@example.com';
  const PHONE = '+447700900999';
  const DATA = 'my-secret-data-value';
  const leaked = (text: string) => [EMAIL, PHONE, DATA, 'eceived'].filter((value) => text.includes(value));

  it('in an event: addresses, phone numbers and data values out of bounds or of the wrong type', () => {
    const event = {
      ...loginCodeEvent(),
      eventId: EMAIL.repeat(20),
      type: [PHONE],
      data: { code: DATA.repeat(300), note: { text: DATA }, again: [EMAIL] },
      recipients: [
        { recipientId: 'a', email: EMAIL.repeat(20), phone: PHONE.repeat(3), channels: [EMAIL] },
        { recipientId: 'b', email: { address: EMAIL }, phone: 4_477_009_009_99, pushEndpointArn: [PHONE], channels: ['sms', 'sms'] },
      ],
    };
    const detail = thrown(() => parseNotificationBody(JSON.stringify(event)));
    expect(detail).toMatch(/^eventId: Too big/);
    expect(leaked(detail)).toEqual([]);
    // Every problem, not only the five a dead letter lists.
    const problems = [event.recipients[0], event.recipients[1]].map((recipient) =>
      thrown(() => parseNotificationBody(JSON.stringify({ ...loginCodeEvent(), recipients: [recipient] }))),
    );
    expect(problems).toEqual([
      'recipients.0.email: Too big: expected length to be <=320; recipients.0.phone: Too big: expected length to be <=32; ' +
        'recipients.0.channels.0: Invalid option: expected one of "email"|"sms"|"push"',
      'recipients.0.email: Invalid input: expected string; recipients.0.phone: Invalid input: expected string; ' +
        'recipients.0.pushEndpointArn: Invalid input: expected string; recipients.0.channels: channels must not repeat',
    ]);
    const data = thrown(() => parseNotificationBody(JSON.stringify({ ...loginCodeEvent(), data: event.data })));
    expect(data).toBe(
      'data.code: Too big: expected length to be <=4096; data.note: Invalid input: expected string|number|boolean|null; ' +
        'data.again: Invalid input: expected string|number|boolean|null',
    );
  });

  it('in the sender configuration and its message classes', () => {
    const detail = thrown(() =>
      loadSenderConfig({ LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: `tel:${PHONE}`, CLAIM_TIMEOUT_SECONDS: EMAIL, DELIVERY_MODE: DATA }),
    );
    expect(detail).toBe(
      'Invalid sender configuration: FUNCTION_TIMEOUT_SECONDS: Invalid input: expected number; ' +
        'CLAIM_TIMEOUT_SECONDS: Invalid input: expected number; DELIVERY_MODE: Invalid option: expected one of "aws"|"outbox"',
    );
    const classes = thrown(() => buildMessageClassRegistry(JSON.stringify([{ name: EMAIL, onAmbiguous: PHONE }])));
    expect(classes).toBe('MESSAGE_CLASSES is invalid at 0.name: Invalid string: must match pattern /^[a-z][a-z0-9-]{0,63}$/');
    expect(leaked(detail + classes)).toEqual([]);
  });

  it('in a delivery-status event', () => {
    const ses = statusFromSesEvent({ eventType: 'Bounce', mail: { timestamp: EMAIL, messageId: [EMAIL], destination: [EMAIL] } });
    const sms = statusFromSmsDeliveryLog(JSON.stringify({ notification: { messageId: PHONE }, status: PHONE }), 0);
    expect([ses, sms]).toEqual([
      { invalid: 'not an SES event: mail.messageId: Invalid input: expected string' },
      { invalid: 'not an SNS SMS delivery log: status: Invalid option: expected one of "SUCCESS"|"FAILURE"' },
    ]);
  });
});
