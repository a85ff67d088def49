import fc from 'fast-check';
import { expect, it } from 'vitest';
import { outcomeChange } from '../../functions/core/outcome/outcome-state';
import { OUTCOME_STREAM_FILTERS } from '../../lib/outcome-stream-filter';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { matchesAnyFilter } from '../../local/aws/stream-filter-match';
import { STATUS_MEANINGS } from '../../functions/core/provider/delivery-status-meaning';
import { claimRow, keyOf, rowWrite, sentRow } from '../outcomes/stream-records';

/**
 * The mapping's filter may drop only what the publisher would drop: for any write between two rows of the shapes
 * the ledger's writers make, a write the publisher would publish matches a pattern.
 */
const SETTLED = ['SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED'] as const;
// Every status the ledger records, so that a status that starts making an event is under the property at once.
const STATUSES = [undefined, ...Object.keys(STATUS_MEANINGS)];
type Status = { readonly status: string; readonly at: number } | undefined;
const status = fc.option(fc.record({ status: fc.constantFrom(...STATUSES.filter((s) => s !== undefined)), at: fc.integer({ min: 0, max: 5 }) }), { nil: undefined });

function build(state: LedgerRow['state'], s: Status, life = 0): LedgerRow {
  const key = keyOf(7);
  const base = state === 'PENDING' ? claimRow(key) : sentRow(key, { state });
  return { ...base, createdAt: base.createdAt + life * 31 * 86_400_000, ...(s ? { deliveryStatus: s.status, deliveryStatusAt: 1_000 + s.at, deliveryStatusRank: 3 } : {}) };
}

/** Every write the ledger's writers make, as (before, after). */
const write = fc.oneof(
  // A claim: a new row, or a new life over a row past its retention.
  fc.tuple(fc.option(fc.constantFrom(...SETTLED), { nil: undefined }), status).map(([old, s]) => [old && build(old, s), build('PENDING', undefined, 1)] as const),
  // A takeover or release, with whatever status evidence the row holds.
  status.map((s) => [build('PENDING', s), build('PENDING', s)] as const),
  // The outcome: PENDING to a settled state, evidence recorded before it kept.
  fc.tuple(fc.constantFrom(...SETTLED), status).map(([state, s]) => [build('PENDING', s), build(state, s)] as const),
  // A delivery status on any row, later than the one it holds.
  fc.tuple(fc.constantFrom('PENDING', ...SETTLED), status, status).map(([state, a, b]) => [build(state, a), build(state, b)] as const),
  // The status Lambda's suppressAfterAcceptance.
  status.map((s) => [build('SENT', s), build('SUPPRESSED', s)] as const),
);

it('lets through every write the publisher would publish', () => {
  fc.assert(
    fc.property(write, ([before, after]) => {
      if (outcomeChange(before, after) === undefined) return;
      expect(matchesAnyFilter(OUTCOME_STREAM_FILTERS, rowWrite(before, after))).toBe(true);
    }),
    { numRuns: 2_000 },
  );
});

it('drops claims, takeovers, limit counters and consent records', () => {
  const key = keyOf(8);
  expect(matchesAnyFilter(OUTCOME_STREAM_FILTERS, rowWrite(undefined, claimRow(key)))).toBe(false);
  expect(matchesAnyFilter(OUTCOME_STREAM_FILTERS, rowWrite(claimRow(key), claimRow(key, { claimVersion: 2 })))).toBe(false);
});

// Defect (2026-12-06): SES Reject and RenderingFailure, End User Messaging's TEXT_SUCCESSFUL and TEXT_UNKNOWN and SES
// Subscription now make an event (docs/outcome-events.md); a filter that dropped their writes would lose the event.
it.each(['Reject', 'RenderingFailure', 'Subscription', 'TEXT_SUCCESSFUL', 'TEXT_UNKNOWN'])('lets through a write that records %s on a sent row', (status) => {
  const key = keyOf(9);
  const before = sentRow(key);
  const after = { ...before, deliveryStatus: status, deliveryStatusAt: 2_000, deliveryStatusRank: 4 };
  expect(outcomeChange(before, after)).toBeDefined();
  expect(matchesAnyFilter(OUTCOME_STREAM_FILTERS, rowWrite(before, after))).toBe(true);
});
