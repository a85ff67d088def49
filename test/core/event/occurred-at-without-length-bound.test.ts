import { describe, expect, it } from 'vitest';
import { rowToItem } from '../../../functions/adapters/dynamodb-ledger';
import { InvalidEventError } from '../../../functions/core/errors';
import { newClaimRow } from '../../../functions/core/ledger/ledger-decision';
import { DEFAULT_MAX_BODY_BYTES, parseNotificationBody } from '../../../functions/core/event/notification-event';
import { itemBytes } from '../../../local/item-bytes';
import { loginCodeEvent } from '../../support/events';

const TIMING = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };

function refusalOf(body: string, maxBodyBytes?: number): string | undefined {
  try {
    parseNotificationBody(body, maxBodyBytes);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidEventError) return error.reason;
    throw error;
  }
}

/** The claim row of a parsed event's first message, as the sender writes it (identifiers only). */
function claimBytesOf(body: string): number {
  const { event } = parseNotificationBody(body, 1024 * 1024);
  const recipient = event.recipients[0]!;
  const row = newClaimRow({
    subject: { key: 'k'.repeat(64), eventId: event.eventId, recipientId: recipient.recipientId, channel: 'sms', templateId: event.templateId, messageClass: event.messageClass, occurredAt: event.occurredAt },
    ownerToken: '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b',
    nowMs: Date.parse('2026-11-29T12:00:00Z'),
    timing: TIMING,
    discoverable: false,
  });
  return itemBytes(rowToItem(row));
}

/**
 * Review defect 1: `occurredAt` had no length bound (the fraction took any number of digits), and every ledger row
 * stores it: a 60,000-digit fraction passed the door inside the default 64 KiB body (one e-mail cost about 119 write
 * units instead of 2), and at a 1 MiB body a 450,000-character value made every claim an item over 400 KB. A row's
 * size must not depend on the producer: the fraction takes at most 9 digits (nanoseconds), the value at most 35 characters.
 */
describe('occurredAt without a length bound (review defect 1)', () => {
  it('a 60,000-digit fraction inside the default body size is refused at the door', () => {
    const body = JSON.stringify(loginCodeEvent({ occurredAt: `2026-11-29T11:59:00.${'1'.repeat(60_000)}Z` }));
    expect(Buffer.byteLength(body)).toBeLessThan(DEFAULT_MAX_BODY_BYTES);
    expect(refusalOf(body)).toBe('SchemaViolation');
  });

  it('a 450,000-character value in a 1 MiB body is refused at the door, never a claim over 400 KB', () => {
    const body = JSON.stringify(loginCodeEvent({ occurredAt: `2026-11-29T11:59:00.${'9'.repeat(450_000)}+01:00` }));
    expect(refusalOf(body, 1024 * 1024)).toBe('SchemaViolation');
  });

  it('the longest occurredAt the door admits (nanoseconds and an offset) keeps the claim within one write unit', () => {
    const longest = '2026-11-29T11:59:00.123456789+01:00';
    expect(refusalOf(JSON.stringify(loginCodeEvent({ occurredAt: longest })))).toBeUndefined();
    expect(refusalOf(JSON.stringify(loginCodeEvent({ occurredAt: '2026-11-29T11:59:00.1234567891+01:00' })))).toBe('SchemaViolation');
    const short = claimBytesOf(JSON.stringify(loginCodeEvent({ occurredAt: '2026-11-29T11:59:00Z' })));
    expect(claimBytesOf(JSON.stringify(loginCodeEvent({ occurredAt: longest })))).toBe(short + longest.length - '2026-11-29T11:59:00Z'.length);
    expect(claimBytesOf(JSON.stringify(loginCodeEvent({ occurredAt: longest })))).toBeLessThanOrEqual(1024);
  });
});
