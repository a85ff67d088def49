import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { claimOf } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS, SenderHarness } from '../support/sender-harness';
import { ReclaimerHarness, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

/** A provider that answers every call the same way, counting the calls. */
function answering(outcome: DeliveryOutcome): DeliveryProvider & { calls: number } {
  const provider = {
    calls: 0,
    async send(): Promise<DeliveryOutcome> {
      provider.calls += 1;
      return outcome;
    },
  };
  return provider;
}

/** A 500 the provider answered: the request reached it, so no ambiguity loop (ambiguity-loop.ts) ever stops it. */
const ANSWERED_500 = { kind: 'ambiguous', reason: 'InternalFailure: We encountered an internal error. Please try again.' } as const satisfies DeliveryOutcome;
/** An error the provider does not document, a 4xx: refused, retried and counted, never FAILED by itself. */
const UNDOCUMENTED_4XX = { kind: 'transient', cause: 'unrecognised', reason: 'UnexpectedParameter: 400' } as const satisfies DeliveryOutcome;

/** The sender's first call was refused (certainly not sent), and the record never came back: released unsent. */
async function releasedUnsent(row: LedgerRow, nowMs: number): Promise<void> {
  expect(await db.ledger.release(claimOf(row), { reason: 'transient', detail: UNDOCUMENTED_4XX.reason, lastAmbiguousAt: undefined }, nowMs)).toBe(true);
}

/**
 * Runs the reclaimer every claim timeout for `hours` over one dead claim of `event`'s first message, whose provider
 * answers `outcome` every time. Returns what the row became, the calls made, and each TTL it had on the way.
 */
async function reclaimFor(event: ReturnType<typeof loginCodeEvent>, outcome: DeliveryOutcome, hours: number, { unsent = false } = {}) {
  const clock = new ControlledClock();
  const sender = new SenderHarness({ ledger: db.ledger, clock });
  const [row] = await seedDeadClaims(db.ledger, event, clock.now());
  if (unsent) await releasedUnsent(row!, clock.now());
  const provider = answering(outcome);
  const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile: sender.outboxFile, wrapProvider: () => provider });
  const ttls = new Set<number>();
  let runs = 0;
  for (; runs < (hours * 3_600_000) / (CLAIM_TIMEOUT_MS + 1_000); runs += 1) {
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    await reclaimer.run();
    const now = await db.ledger.get(row!.key);
    ttls.add(now!.expiresAt);
    if (now?.state !== 'PENDING') break;
  }
  const ended = await db.ledger.get(row!.key);
  return { row: row!, ended: ended!, calls: provider.calls, ttls, endedAfterMs: clock.now() - row!.createdAt, metrics: reclaimer.metrics };
}

/**
 * Review defect 3: the reclaimer never gave up on a row, and each takeover moved its TTL out again. An otp row whose
 * provider answered 500 on every call got 45 sends and 45 counted possible duplicates in 45 runs, stayed PENDING, and
 * its TTL moved from 2026-12-29 to 2027-02-11; an undocumented 4xx on every call: 44 calls, still PENDING. A row now
 * ends by a bound derived from its class and the retention (UNKNOWN when a call may have sent it, FAILED when none
 * can have; counted), and its TTL never moves past its first claim plus the retention.
 */
describe('the reclaimer never gives up on a row, and each takeover moves its TTL out (review defect 3)', () => {
  it('an otp row whose provider answers 500 on every call ends UNKNOWN within its bound, its TTL fixed at first claim + retention', async () => {
    const { row, ended, calls, ttls, endedAfterMs, metrics } = await reclaimFor(loginCodeEvent({ eventId: 'evt-never-ends-500', messageClass: 'otp' }), ANSWERED_500, 1);
    expect(ended).toMatchObject({ state: 'UNKNOWN', failureReason: expect.stringMatching(/^SettleBoundReached: /) });
    // otp's bound is 30 minutes from the first claim; the row ends at the first run past it.
    expect(endedAfterMs).toBeLessThanOrEqual(30 * 60_000 + CLAIM_TIMEOUT_MS + 1_000);
    expect(calls).toBeLessThanOrEqual(15);
    expect(metrics.get(METRIC.SettleBoundReached)).toBe(1);
    expect([...ttls]).toEqual([Math.ceil((row.createdAt + RETENTION_MS) / 1000)]);
  });

  it('an otp row whose provider answers an undocumented 4xx on every call ends FAILED (no call may have sent it) within its bound', async () => {
    const { ended, endedAfterMs, metrics } = await reclaimFor(loginCodeEvent({ eventId: 'evt-never-ends-4xx', messageClass: 'otp' }), UNDOCUMENTED_4XX, 1, { unsent: true });
    expect(ended).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^SettleBoundReached: /) });
    expect(endedAfterMs).toBeLessThanOrEqual(30 * 60_000 + CLAIM_TIMEOUT_MS + 1_000);
    expect(metrics.get(METRIC.SettleBoundReached)).toBe(1);
  });

  it('the same row whose owner died (it may have sent) ends UNKNOWN, never FAILED: three facts, never two', async () => {
    const { ended } = await reclaimFor(loginCodeEvent({ eventId: 'evt-never-ends-4xx-died', messageClass: 'otp' }), UNDOCUMENTED_4XX, 1);
    expect(ended).toMatchObject({ state: 'UNKNOWN', failureReason: expect.stringMatching(/^SettleBoundReached: /) });
  });

  it('a transactional row (no bound of its own) ends by half the retention, its TTL never moved', async () => {
    const event = orderShippedEvent({ eventId: 'evt-never-ends-transactional', recipients: [orderShippedEvent().recipients[1]!] });
    const clock = new ControlledClock();
    const sender = new SenderHarness({ ledger: db.ledger, clock });
    const [row] = await seedDeadClaims(db.ledger, event, clock.now());
    await releasedUnsent(row!, clock.now());
    const provider = answering(UNDOCUMENTED_4XX);
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile: sender.outboxFile, wrapProvider: () => provider });
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    await reclaimer.run();
    expect((await db.ledger.get(row!.key))?.state).toBe('PENDING');
    clock.advance(RETENTION_MS / 2);
    await reclaimer.run();
    expect(await db.ledger.get(row!.key)).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^SettleBoundReached: /), expiresAt: row!.expiresAt });
  });
});
