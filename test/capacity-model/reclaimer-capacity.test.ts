import { describe, expect, it } from 'vitest';
import { TYPICAL_LATENCIES } from '../../lib/capacity-model/lane-throughput';
import { lognormalMean, lognormalParameters, sumOfLognormals } from '../../lib/capacity-model/lognormal-latency';
import { reclaimerCapacity } from '../../lib/capacity-model/reclaimer-capacity';

/** The stack's defaults: function timeout 30 s - send timeout 10 s - 2 s, 500 rows, 16 at once, every minute. */
const DEFAULTS = { timeBudgetMs: 18_000, maxRowsPerRun: 500, concurrency: 16, latencies: TYPICAL_LATENCIES, limitCounters: 3, scheduleSeconds: 60 };

describe('reclaimer capacity', () => {
  it('a row is a read, a takeover, its counters, a provider call and the outcome', () => {
    const ledger = lognormalParameters(TYPICAL_LATENCIES.ledger);
    const row = sumOfLognormals([lognormalParameters(TYPICAL_LATENCIES.provider), ledger, ledger, ledger, ledger, ledger, ledger]);
    expect(reclaimerCapacity(DEFAULTS).rowMs).toBeCloseTo(lognormalMean(row), 9);
  });

  it('with the defaults a run stops at its 500 rows, well inside its time budget', () => {
    const c = reclaimerCapacity(DEFAULTS);
    expect(c.budgetRows).toBeGreaterThan(2000);
    expect(c).toMatchObject({ rowsPerRun: 500, rowsPerMinute: 500, binding: 'maxRowsPerRun' });
  });

  it('a short budget binds first; a run every 5 minutes settles a fifth as many a minute', () => {
    const c = reclaimerCapacity({ ...DEFAULTS, timeBudgetMs: 1_000, scheduleSeconds: 300 });
    expect(c.binding).toBe('time budget');
    expect(c.rowsPerRun).toBe(Math.floor(1000 / c.rowMs) * 16);
    expect(c.rowsPerMinute).toBe(c.rowsPerRun / 5);
  });
});
