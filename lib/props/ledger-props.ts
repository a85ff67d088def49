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
   * Shards of the sparse pending index the reclaimer walks (16 to 1000). Each claim the queue may not bring back adds
   * and removes one entry in its shard, and a shard is one index partition (1,000 write units a second, its sort key
   * only grows, so DynamoDB cannot split it): 16 shards take 8,000 such claims a second. Synth refuses fewer than the
   * stated `sendRates` need (docs/scale.md). Only raise it: a claim indexed in a shard above a lowered count is not
   * walked again until its TTL.
   * @default 16
   */
  readonly pendingIndexShards?: number;
  /**
   * Entry file of the reclaimer handler (exports `handler`).
   * @default - `functions/reclaimer/handler.ts` of this repository
   */
  readonly reclaimerEntry?: string;
}
