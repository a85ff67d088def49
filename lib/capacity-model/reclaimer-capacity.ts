import { lognormalMean, lognormalParameters, sumOfLognormals } from './lognormal-latency';
import type { MessageLatencies } from './lane-throughput';

/**
 * How many stale rows the reclaimer settles per run and per minute (docs/scale.md, "The reclaimer at that
 * scale"). A run starts rows until its time budget is spent or it has listed `maxRowsPerRun` index entries,
 * `concurrency` at a time (functions/reclaimer/create-reclaimer.ts); each row is a consistent read, a fenced
 * takeover, its counters (each finds the message counted), one provider call and the outcome.
 */
export interface ReclaimerCapacityInputs {
  /** `RECLAIMER_TIME_BUDGET_MS`: function timeout - send timeout - 2 s unless set. */
  readonly timeBudgetMs: number;
  /** `RECLAIMER_MAX_ROWS_PER_RUN`. */
  readonly maxRowsPerRun: number;
  /** Rows settled at once: the sender's `MAX_CONCURRENT_SENDS`. */
  readonly concurrency: number;
  readonly latencies: MessageLatencies;
  /** Limit counters each row's message passes again. */
  readonly limitCounters: number;
  /** How often it runs, seconds. */
  readonly scheduleSeconds: number;
}

export interface ReclaimerCapacity {
  /** Mean time to settle one row, ms. */
  readonly rowMs: number;
  /** Rows the time budget allows at the concurrency. */
  readonly budgetRows: number;
  /** Rows one run settles: the smaller of the budget's and the cap. */
  readonly rowsPerRun: number;
  readonly rowsPerMinute: number;
  /** What stops a run first. */
  readonly binding: 'time budget' | 'maxRowsPerRun';
}

export function reclaimerCapacity(inputs: ReclaimerCapacityInputs): ReclaimerCapacity {
  const ledger = lognormalParameters(inputs.latencies.ledger);
  // The read, the takeover, each counter and the outcome, then the provider call.
  const ledgerRequests = 3 + inputs.limitCounters;
  const row = sumOfLognormals([lognormalParameters(inputs.latencies.provider), ...Array.from({ length: ledgerRequests }, () => ledger)]);
  const rowMs = lognormalMean(row);
  const budgetRows = Math.floor(inputs.timeBudgetMs / rowMs) * inputs.concurrency;
  const rowsPerRun = Math.min(budgetRows, inputs.maxRowsPerRun);
  return {
    rowMs,
    budgetRows,
    rowsPerRun,
    rowsPerMinute: (rowsPerRun * 60) / inputs.scheduleSeconds,
    binding: budgetRows < inputs.maxRowsPerRun ? 'time budget' : 'maxRowsPerRun',
  };
}
