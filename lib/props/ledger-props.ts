import type { Duration } from 'aws-cdk-lib';

/**
 * The send ledger and its reclaimer: claim and send timeouts, retention, clock skew, the reclaimer's schedule.
 * Resolved by `resolveSettings` (lib/notifier-settings.ts), checked with the queues' timing by
 * `settingsViolations`.
 */
export interface LedgerProps {
  /**
   * A claim older than this is presumed dead and may be taken over (must exceed `functionTimeout`).
   * @default Duration.seconds(120)
   */
  readonly claimTimeout?: Duration;
  /**
   * Timeout of one provider call (must be below `functionTimeout`).
   * @default Duration.seconds(10)
   */
  readonly sendTimeout?: Duration;
  /**
   * How long ledger rows live (whole days; TTL on `expiresAt`).
   * @default Duration.days(30)
   */
  readonly ledgerRetention?: Duration;
  /**
   * Tolerated clock skew of producers' `occurredAt`.
   * @default Duration.minutes(5)
   */
  readonly maxClockSkew?: Duration;
  /**
   * Deletion protection of the ledger table (it is RETAINed on stack deletion either way).
   * @default true
   */
  readonly tableDeletionProtection?: boolean;
  /**
   * How often the reclaimer looks for stale PENDING rows.
   * @default Duration.minutes(1)
   */
  readonly reclaimerSchedule?: Duration;
  /**
   * Entry file of the reclaimer handler (exports `handler`).
   * @default - `functions/reclaimer/handler.ts` of this repository
   */
  readonly reclaimerEntry?: string;
}
