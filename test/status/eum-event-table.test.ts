import { EventType, SpendLimitName } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { describe, expect, it } from 'vitest';
import { STATUS_MEANINGS, statusProof } from '../../functions/core/provider/delivery-status-meaning';
import { statusFromEumEvent } from '../../functions/status/eum-sms-event';
import { eumEvent } from './eum-fixtures';

const AT = Date.parse('2026-11-29T12:00:00.000Z');
const KEY = 'c'.repeat(64);
/** SMS event names of the SDK that are a filter or that the SDK documents as not supported, so never an event. */
const NOT_AN_SMS_EVENT = ['TEXT_ALL', 'TEXT_SENT'];

describe("End User Messaging's SMS event types: one table says what each proves", () => {
  it("covers every TEXT_ event type of the SDK but TEXT_ALL (a filter) and TEXT_SENT (documented as not supported), and no other", () => {
    const sdk = Object.values(EventType).filter((type) => type.startsWith('TEXT_') && !NOT_AN_SMS_EVENT.includes(type));
    const table = Object.keys(STATUS_MEANINGS).filter((status) => status.startsWith('TEXT_'));
    expect(table.sort()).toEqual(sdk.sort());
  });

  it('reads the page: after the hand-off a send, before it a refusal, queued or pending a request accepted', () => {
    const byProof = (proves: string) => Object.keys(STATUS_MEANINGS).filter((s) => s.startsWith('TEXT_') && statusProof(s) === proves).sort();
    expect(byProof('sent')).toEqual(
      ['TEXT_BLOCKED', 'TEXT_CARRIER_BLOCKED', 'TEXT_CARRIER_UNREACHABLE', 'TEXT_DELIVERED', 'TEXT_SPAM', 'TEXT_SUCCESSFUL', 'TEXT_UNKNOWN', 'TEXT_UNREACHABLE'].sort(),
    );
    expect(byProof('not-sent')).toEqual(['TEXT_INVALID', 'TEXT_INVALID_MESSAGE', 'TEXT_PROTECT_BLOCKED', 'TEXT_TTL_EXPIRED']);
    expect(byProof('accepted')).toEqual(['TEXT_PENDING', 'TEXT_QUEUED']);
  });

  it('TEXT_SENT and TEXT_MESSAGE_MONTHLY_SPEND_LIMIT are never recorded: one unsupported, the other a spend limit\'s name, not an event', () => {
    expect(Object.values(SpendLimitName)).toContain('TEXT_MESSAGE_MONTHLY_SPEND_LIMIT');
    expect(Object.values(EventType)).not.toContain('TEXT_MESSAGE_MONTHLY_SPEND_LIMIT');
    for (const type of ['TEXT_SENT', 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT']) {
      expect(statusProof(type)).toBe('nothing');
      expect(statusFromEumEvent(eumEvent(type, { key: KEY, claimVersion: 1, at: AT })), type).toEqual({
        invalid: `End User Messaging event type ${type} is not recorded`,
      });
    }
  });
});
