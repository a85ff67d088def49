import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { type PaceClock, SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { ReclaimerHarness, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

/** A pace clock standing still: it records every wait the governor asks for and lets it pass at once. */
class RecordingPaceClock implements PaceClock {
  readonly waits: number[] = [];
  private readonly start = Date.now();
  now(): number {
    return this.start;
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
  }
}

describe('the reclaimer holds a share of the send rate', () => {
  it('paces its resends through the governor it is given (the copied context once dropped it)', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    for (const i of [1, 2, 3]) {
      await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: `evt-paced-resend-${i}`, messageClass: 'otp' }), sender.clock.now());
    }
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const pace = new RecordingPaceClock();
    // One SMS a second: three resends at once must take slots 0, 1 and 2 seconds from now.
    const reclaimer = new ReclaimerHarness({
      ledger: db.ledger,
      clock: sender.clock,
      outboxFile: sender.outboxFile,
      governor: new SendRateGovernor({ sms: 1 }, pace),
    });

    const summary = await reclaimer.run();

    expect(summary.found).toBe(3);
    expect(reclaimer.metrics.get(METRIC.ReclaimedResent)).toBe(3);
    expect([...(await sender.callsPerKey()).values()].reduce((a, b) => a + b, 0)).toBe(3);
    expect(pace.waits.sort((a, b) => a - b)).toEqual([1_000, 2_000]);
  });
});
