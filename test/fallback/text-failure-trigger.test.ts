import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { actionOfRecord } from '../../functions/fallback/fallback-of-record';
import { FALLBACK_STREAM_FILTERS } from '../../lib/fallback-stream-filter';
import { matchesAnyFilter } from '../../local/aws/stream-filter-match';
import { keyOf, rowWrite, sentRow, T0 } from '../outcomes/stream-records';

const withPlan = { fallbackKey: 'f'.repeat(64), fallbackPlan: Uint8Array.of(1, 2, 3), channel: 'sms' as const };
const reading = { messageClasses: buildMessageClassRegistry(), bulkClasses: [], nowMs: T0 + 5_000 };

/** A SENT text's row before and after the status function records an End User Messaging event on it. */
function statusWrite(n: number, status: string, intermediate: boolean) {
  const sent = sentRow(keyOf(n), withPlan);
  const after: LedgerRow = {
    ...sent,
    deliveryStatus: status,
    deliveryStatusAt: T0 + 2_000,
    deliveryStatusRank: 4,
    deliveryStatusSource: 'eum-sms',
    ...(intermediate ? { deliveryStatusIntermediate: true as const } : {}),
  };
  return rowWrite(sent, after);
}

describe('a text that certainly failed after it was SENT reaches the fallback trigger', () => {
  it.each(['TEXT_UNREACHABLE', 'TEXT_BLOCKED', 'TEXT_INVALID', 'TEXT_TTL_EXPIRED'])(
    'a final %s on a SENT transactional text passes the stream filter and asks for the fallback at once',
    (status) => {
      const record = statusWrite(1, status, false);
      expect(matchesAnyFilter(FALLBACK_STREAM_FILTERS, record)).toBe(true);
      expect(actionOfRecord(record, reading)).toMatchObject({ kind: 'request', delaySeconds: 0 });
    },
  );

  it.each(['TEXT_UNREACHABLE', 'TEXT_BLOCKED', 'TEXT_INVALID', 'TEXT_TTL_EXPIRED'])('an intermediate %s asks for nothing: the final word is to come', (status) => {
    expect(actionOfRecord(statusWrite(2, status, true), reading)).toEqual({ kind: 'nothing' });
  });
});
