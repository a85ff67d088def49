import { describe, expect, it } from 'vitest';
import { claimOf } from '../../functions/core/ledger/ledger-decision';
import { METRIC } from '../../functions/core/observability/metric-names';
import { REQUEST_NOT_STORED } from '../../functions/reclaimer/plan-from-row';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { deadClaimRow, plansOf, ReclaimerHarness } from './reclaimer-harness';

const db = useTestLedger();

/**
 * Review defect 7: `ResentAfterAmbiguity` pages as a possible duplicate, yet it was counted when the class policy
 * said "send again", before the send gate: an otp row without a stored request ended FAILED with no provider
 * call and still counted one. It is counted where the provider is actually called.
 */
describe('ResentAfterAmbiguity counted before the send gate (review defect 7)', () => {
  it('an ambiguous otp row without a stored request ends FAILED with no provider call and counts no resend', async () => {
    const clock = new ControlledClock();
    const sender = new SenderHarness({ ledger: db.ledger, clock });
    // An otp text whose number is invalid: the row keeps no request, and an earlier attempt's outcome is unknown.
    const event = loginCodeEvent({ eventId: 'evt-resent-counted-before-gate', messageClass: 'otp', recipients: [{ recipientId: 'user-9', phone: 'not-a-phone', channels: ['sms'] }] });
    const [plan] = plansOf(event);
    const claimedAt = clock.now() - CLAIM_TIMEOUT_MS - 60_000;
    const row = deadClaimRow(plan!, claimedAt);
    expect(row.request).toBeUndefined();
    expect((await db.ledger.claim(row, claimedAt)).claimed).toBe(true);
    expect(await db.ledger.release(claimOf(row), { reason: 'ambiguous', detail: 'SendTimeout', lastAmbiguousAt: claimedAt + 1_000 }, claimedAt + 2_000)).toBe(true);

    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile: sender.outboxFile });
    expect(await reclaimer.run()).toMatchObject({ found: 1, failed: 1 });
    expect(await db.ledger.get(row.key)).toMatchObject({ state: 'FAILED', failureReason: REQUEST_NOT_STORED });
    expect((await sender.callsPerKey()).get(row.key) ?? 0).toBe(0);
    expect(reclaimer.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
  });
});
