import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../functions/core/errors';
import { buildMessageClassRegistry } from '../../functions/core/message-class';
import { parseNotificationBody } from '../../functions/core/notification-event';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { loadStatusConfig } from '../../functions/status/status-config';
import { loadReclaimerLimits } from '../../functions/reclaimer/reclaimer-config';
import { loginCodeEvent } from '../support/events';

/**
 * The functions validate with zod/mini, which has no messages of its own ("Invalid input" for every
 * problem); `functions/core/schema.ts` installs zod's English ones. These are what an operator reads in a
 * failed cold start or a dead letter's detail, so they are pinned word for word.
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
      'Invalid sender configuration: LEDGER_TABLE_NAME: Too small: expected string to have >=3 characters; ' +
        'FUNCTION_TIMEOUT_SECONDS: Invalid input: expected int, received number; CLAIM_TIMEOUT_SECONDS: Too small: expected number to be >0; ' +
        'DELIVERY_MODE: Invalid option: expected one of "aws"|"outbox"; MAX_CONCURRENT_SENDS: Too big: expected number to be <=256',
    );
  });

  it('in an event: each field by path, never its value', () => {
    const event = { ...loginCodeEvent(), eventId: '', occurredAt: '2026-11-29T12:00:00', recipients: [{ recipientId: 'r', channels: ['fax'] }] };
    expect(thrown(() => parseNotificationBody(JSON.stringify(event)))).toBe(
      'eventId: Too small: expected string to have >=1 characters; occurredAt: Invalid ISO datetime; ' +
        'recipients.0.channels.0: Invalid option: expected one of "email"|"sms"|"push"',
    );
  });

  it('in an envelope, a message class, the reclaimer limits and the status configuration', () => {
    const sns = { Type: 'Notification', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t', Message: '{}', MessageId: 'm', Timestamp: 'soon' };
    expect(thrown(() => parseNotificationBody(JSON.stringify(sns)))).toBe('SNS envelope: Timestamp: Invalid ISO datetime');
    expect(thrown(() => buildMessageClassRegistry('[{"name":"slow","onAmbiguous":"lookup","evidenceWaitSeconds":1.5}]'))).toBe(
      'MESSAGE_CLASSES is invalid at 0.evidenceWaitSeconds: Invalid input: expected int, received number',
    );
    expect(
      thrown(() => loadReclaimerLimits({ RECLAIMER_MAX_ROWS_PER_RUN: '0' }, { functionTimeoutMs: 60_000, sendTimeoutMs: 10_000, maxConcurrentSends: 4 })),
    ).toBe('Invalid reclaimer configuration: RECLAIMER_MAX_ROWS_PER_RUN: Too small: expected number to be >0');
    expect(thrown(() => loadStatusConfig({ LEDGER_TABLE_NAME: '  ab ' }))).toBe('Invalid status configuration: LEDGER_TABLE_NAME must name the ledger table');
    expect(loadStatusConfig({ LEDGER_TABLE_NAME: ' ledger ' })).toEqual({ tableName: 'ledger' });
  });
});
