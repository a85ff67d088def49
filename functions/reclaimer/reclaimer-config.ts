import * as v from 'valibot';
import { ConfigurationError } from '../core/errors';
import { describeProblems, validate } from '../core/schema';
import type { SenderConfig } from '../core/sender-config';

/** Optional variables only the reclaimer reads (it also reads every sender variable, see `ENV`). */
export const RECLAIMER_ENV = {
  /** Stop starting new rows after this many ms of a run. */
  timeBudgetMs: 'RECLAIMER_TIME_BUDGET_MS',
  /** Most pending-index entries one run examines. */
  maxRowsPerRun: 'RECLAIMER_MAX_ROWS_PER_RUN',
} as const;

/** Time kept free at the end of an invocation for the last writes and the metrics flush. */
export const RECLAIMER_SAFETY_MARGIN_MS = 2_000;

/** How much one reclaimer run may do. */
export interface ReclaimerLimits {
  /**
   * No new row is started after this many ms; rows in flight finish (each within the send timeout).
   * @default function timeout - send timeout - {@link RECLAIMER_SAFETY_MARGIN_MS}
   */
  readonly timeBudgetMs: number;
  /** Most pending-index entries one run examines. @default 500 */
  readonly maxRowsPerRun: number;
  /** Rows per index page. @default 25 */
  readonly pageSize: number;
  /** Rows resolved at once. @default the sender's MAX_CONCURRENT_SENDS */
  readonly concurrency: number;
}

/** Unset or blank: the default; otherwise a positive integer (as `Number()` reads the text). */
const optionalPositiveInt = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value)),
    v.optional(v.pipe(v.unknown(), v.transform(Number), v.number(), v.safeInteger(), v.gtValue(0))),
  ),
);

const LimitsSchema = v.object({ [RECLAIMER_ENV.timeBudgetMs]: optionalPositiveInt, [RECLAIMER_ENV.maxRowsPerRun]: optionalPositiveInt });

/**
 * Reads the reclaimer's own limits, checked against the sender configuration it shares.
 * @throws ConfigurationError naming the variable and the rule it breaks (a numeric value over its bound is quoted with the bound).
 */
export function loadReclaimerLimits(
  env: Readonly<Record<string, string | undefined>>,
  config: Pick<SenderConfig, 'functionTimeoutMs' | 'sendTimeoutMs' | 'maxConcurrentSends'>,
): ReclaimerLimits {
  const parsed = validate(LimitsSchema, env);
  if (!parsed.success) throw new ConfigurationError(`Invalid reclaimer configuration: ${describeProblems(parsed.problems)}`);
  const ceiling = config.functionTimeoutMs - config.sendTimeoutMs - RECLAIMER_SAFETY_MARGIN_MS;
  if (ceiling < 1_000) {
    throw new ConfigurationError(
      `Unsafe reclaimer configuration: function timeout (${config.functionTimeoutMs}ms) leaves under 1s of work after ` +
        `the send timeout (${config.sendTimeoutMs}ms) and a ${RECLAIMER_SAFETY_MARGIN_MS}ms margin; raise FUNCTION_TIMEOUT_SECONDS`,
    );
  }
  const requested = parsed.output[RECLAIMER_ENV.timeBudgetMs];
  if (requested !== undefined && requested > ceiling) {
    throw new ConfigurationError(
      `Unsafe reclaimer configuration: ${RECLAIMER_ENV.timeBudgetMs} (${requested}ms) must be at most function timeout - ` +
        `send timeout - ${RECLAIMER_SAFETY_MARGIN_MS}ms = ${ceiling}ms, or Lambda kills a run in the middle of a send`,
    );
  }
  const maxRows = parsed.output[RECLAIMER_ENV.maxRowsPerRun] ?? 500;
  if (maxRows > 10_000) {
    throw new ConfigurationError(`Invalid reclaimer configuration: ${RECLAIMER_ENV.maxRowsPerRun} (${maxRows}) must be at most 10000`);
  }
  return {
    timeBudgetMs: requested ?? ceiling,
    maxRowsPerRun: maxRows,
    pageSize: 25,
    concurrency: config.maxConcurrentSends,
  };
}
