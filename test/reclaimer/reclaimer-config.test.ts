import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../functions/core/errors';
import { RECLAIMER_ENV, loadReclaimerLimits } from '../../functions/reclaimer/reclaimer-config';

const sender = { functionTimeoutMs: 30_000, sendTimeoutMs: 10_000, maxConcurrentSends: 16 };

describe('reclaimer limits', () => {
  it('defaults the budget to function timeout - send timeout - margin', () => {
    expect(loadReclaimerLimits({}, sender)).toEqual({ timeBudgetMs: 18_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 16 });
    expect(loadReclaimerLimits({ [RECLAIMER_ENV.timeBudgetMs]: ' ', [RECLAIMER_ENV.maxRowsPerRun]: '' }, sender).timeBudgetMs).toBe(18_000);
  });

  it('takes explicit values within bounds', () => {
    const limits = loadReclaimerLimits({ [RECLAIMER_ENV.timeBudgetMs]: '12000', [RECLAIMER_ENV.maxRowsPerRun]: '50' }, sender);
    expect(limits).toMatchObject({ timeBudgetMs: 12_000, maxRowsPerRun: 50 });
  });

  it.each([
    [{ [RECLAIMER_ENV.timeBudgetMs]: '25000' }, sender, /RECLAIMER_TIME_BUDGET_MS \(25000ms\) must be at most .* = 18000ms/],
    [{ [RECLAIMER_ENV.timeBudgetMs]: 'soon' }, sender, /RECLAIMER_TIME_BUDGET_MS/],
    [{ [RECLAIMER_ENV.maxRowsPerRun]: '0' }, sender, /RECLAIMER_MAX_ROWS_PER_RUN/],
    [{ [RECLAIMER_ENV.maxRowsPerRun]: '20000' }, sender, /at most 10000/],
    [{}, { ...sender, functionTimeoutMs: 12_000 }, /leaves under 1s of work/],
  ])('rejects %o', (env, config, message) => {
    expect(() => loadReclaimerLimits(env, config)).toThrow(ConfigurationError);
    expect(() => loadReclaimerLimits(env, config)).toThrow(message);
  });
});

describe('reclaimer limits at their edges', () => {
  it('a function timeout leaving exactly 1 s of work is enough; a millisecond less is not, and says what to raise', () => {
    expect(loadReclaimerLimits({}, { ...sender, functionTimeoutMs: 13_000 }).timeBudgetMs).toBe(1_000);
    expect(() => loadReclaimerLimits({}, { ...sender, functionTimeoutMs: 12_999 })).toThrow(
      'Unsafe reclaimer configuration: function timeout (12999ms) leaves under 1s of work after the send timeout (10000ms) and a 2000ms margin; raise FUNCTION_TIMEOUT_SECONDS',
    );
  });

  it('a budget of exactly the ceiling is allowed', () => {
    expect(loadReclaimerLimits({ [RECLAIMER_ENV.timeBudgetMs]: '18000' }, sender).timeBudgetMs).toBe(18_000);
  });

  it('at most 10000 rows per run', () => {
    expect(loadReclaimerLimits({ [RECLAIMER_ENV.maxRowsPerRun]: '10000' }, sender).maxRowsPerRun).toBe(10_000);
  });

  it('lists every malformed variable at once', () => {
    expect(() => loadReclaimerLimits({ [RECLAIMER_ENV.timeBudgetMs]: 'soon', [RECLAIMER_ENV.maxRowsPerRun]: '0' }, sender)).toThrow(
      /^Invalid reclaimer configuration: RECLAIMER_TIME_BUDGET_MS: .+; RECLAIMER_MAX_ROWS_PER_RUN: .+$/,
    );
  });
});
