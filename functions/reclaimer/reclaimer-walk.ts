import pLimit from 'p-limit';
import { keyPrefix } from '../core/event/idempotency-key';
import { isExpired } from '../core/ledger/ledger-decision';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { PENDING_SHARD_COUNT } from '../core/ledger/ledger-table';
import type { MessageClassRegistry } from '../core/policy/message-class';
import { METRIC } from '../core/observability/metric-names';
import type { PageCursor, StalePendingEntry, StalePendingPage, StalePendingSource } from '../core/ledger/stale-pending';
import type { DeliveryContext } from '../delivery/deliver-message';
import type { RowFate, SettleStaleRow } from './settle-stale-row';
import { RECLAIMER_SAFETY_MARGIN_MS, type ReclaimerLimits } from './reclaimer-config';

/** Everything a reclaimer run needs, injected: AWS adapters in Lambda, dynalite and the outbox in tests. */
export interface ReclaimerDependencies extends DeliveryContext {
  readonly pending: StalePendingSource;
  readonly messageClasses: MessageClassRegistry;
  readonly limits: ReclaimerLimits;
}

/** What one run did. Every row counted in `found` is in exactly one of the outcome counts. */
export interface ReclaimerRunSummary {
  /** PENDING rows whose claim is stale, confirmed by a strongly consistent read. */
  readonly found: number;
  /** Ended SENT on delivery evidence, without a provider call. */
  readonly sent: number;
  /** Ended SENT by this run's own provider call. */
  readonly resent: number;
  /** Ended UNKNOWN (class policy `give-up`). */
  readonly gaveUp: number;
  /** Ended FAILED (provider refused it, or it cannot be sent from the ledger). */
  readonly failed: number;
  /** Ended SUPPRESSED (a limit of its class or a destination rule; never sent). */
  readonly suppressed: number;
  /** Still PENDING: waiting for evidence, transient provider failure, outcome unknown again, or another worker won. */
  readonly leftPending: number;
  /** Index entries that were no longer stale when re-read (settled, re-claimed or past TTL). */
  readonly skipped: number;
  /** Index entries listed but not started because the time budget ran out; the next run sees them. */
  readonly deferred: number;
  /** The time budget, the row cap or a failed index query ended the run before every shard was exhausted. */
  readonly stoppedEarly: boolean;
}

/** Per-invocation inputs of a run. */
export interface ReclaimerRunOptions {
  /** Time Lambda still grants this invocation; caps the budget further. @default unlimited */
  readonly remainingTimeMs?: number;
}

/** One bounded pass over the pending index; safe to run concurrently with senders and other reclaimers. */
export interface Reclaimer {
  run(options?: ReclaimerRunOptions): Promise<ReclaimerRunSummary>;
}

/** Where a shard's next page starts; `cursor` undefined for its first page. */
interface ShardCursor {
  readonly shard: string;
  readonly cursor: PageCursor | undefined;
}

/**
 * Finds PENDING rows whose claim outlived the claim timeout, shard by shard through the sparse
 * pending index (key-condition queries on `claimedAt`, never a scan), and settles each through
 * `settle` (the sender's own fenced takeover and class policy: settle-stale-row.ts). Each row is one
 * fenced unit: a run that stops early, or dies, leaves every row either settled or still
 * PENDING for the next run, never half-done.
 */
export function reclaimerWith(deps: ReclaimerDependencies, settle: SettleStaleRow): Reclaimer {
  // The shards the senders index claims in (PENDING_INDEX_SHARDS): the same field, so the walk covers them.
  const shardCount = deps.pendingIndexShards ?? PENDING_SHARD_COUNT;
  // Where the next run's walk starts: it turns with each run, from a point the clock picks at cold start.
  let nextStart = Math.floor(deps.clock() / 1_000) % shardCount;
  return {
    async run(options = {}) {
      const startedAt = deps.clock();
      const cutoff = startedAt - deps.timing.claimTimeoutMs;
      const budget =
        options.remainingTimeMs === undefined
          ? deps.limits.timeBudgetMs
          : Math.min(deps.limits.timeBudgetMs, options.remainingTimeMs - deps.sendTimeoutMs - RECLAIMER_SAFETY_MARGIN_MS);
      const deadline = startedAt + budget;
      const counts: Record<RowFate, number> = {
        sent: 0,
        resent: 0,
        gaveUp: 0,
        failed: 0,
        suppressed: 0,
        leftPending: 0,
        skipped: 0,
        deferred: 0,
      };
      const limit = pLimit(deps.limits.concurrency);
      // Index entries fetched or being fetched: reserved before each query so concurrent shards never exceed the cap.
      let reserved = 0;
      // Shards whose first page this run asked for.
      let asked = 0;
      let queryFailed = false;
      const timeLeft = () => deps.clock() < deadline;

      /** One page of one shard; its rows go through the shared concurrency limit. Returns where the shard goes on. */
      const visit = async (entry: ShardCursor, share: number): Promise<ShardCursor | undefined> => {
        const pageSize = Math.min(share, deps.limits.maxRowsPerRun - reserved);
        if (pageSize <= 0 || !timeLeft()) return entry;
        reserved += pageSize;
        if (entry.cursor === undefined) asked += 1;
        let page: StalePendingPage;
        try {
          page = await deps.pending.listStalePending(entry.shard, cutoff, pageSize, entry.cursor);
        } catch (error) {
          // Not thrown: an answered invocation is frozen by Lambda with the other shards' sends in flight.
          reserved -= pageSize;
          queryFailed = true;
          deps.metrics.count(METRIC.LedgerError);
          deps.log.error('Pending index query failed; the shard is left for the next run', {
            shard: entry.shard,
            error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
          });
          return undefined;
        }
        reserved -= pageSize - page.rows.length;
        const outcomes = await Promise.all(
          page.rows.map((indexed) =>
            // Checked when the row's turn comes: a queued row never starts after the deadline.
            limit(async () => (timeLeft() ? reclaimRow(indexed, cutoff, deps, settle) : ('deferred' as const))),
          ),
        );
        for (const outcome of outcomes) counts[outcome] += 1;
        return page.cursor ? { shard: entry.shard, cursor: page.cursor } : undefined;
      };

      // Fairness (review defect 4): the first round gives every shard its share of the run's cap (at least one
      // entry), in an order that starts where the last run's first round stopped, so a backlog in some shards
      // never keeps the others from being asked. The rest of the cap then goes a page per shard and round.
      // Bound: with a cap of at least one entry per shard, every shard is asked in every run; with a smaller cap,
      // within ceil(shards / cap) runs of one environment.
      const start = nextStart;
      const fairShare = Math.min(deps.limits.pageSize, Math.max(1, Math.floor(deps.limits.maxRowsPerRun / shardCount)));
      let active: ShardCursor[] = Array.from({ length: shardCount }, (_, i) => ({ shard: String((start + i) % shardCount), cursor: undefined }));
      for (let round = 0; active.length > 0 && reserved < deps.limits.maxRowsPerRun && timeLeft(); round += 1) {
        const share = round === 0 ? fairShare : deps.limits.pageSize;
        active = (await Promise.all(active.map((entry) => visit(entry, share)))).filter((entry): entry is ShardCursor => entry !== undefined);
      }
      // Every shard asked: the next run starts one further on, so no shard's rows always queue last.
      nextStart = (start + (asked < shardCount ? Math.max(1, asked) : 1)) % shardCount;

      const found = counts.sent + counts.resent + counts.gaveUp + counts.failed + counts.suppressed + counts.leftPending;
      const summary: ReclaimerRunSummary = { found, ...counts, stoppedEarly: active.length > 0 || counts.deferred > 0 || queryFailed };
      deps.log.info('Reclaimer run finished', { ...summary, durationMs: deps.clock() - startedAt, budgetMs: budget });
      return summary;
    },
  };
}

/** Re-reads one indexed row, and settles it if it is still a stale PENDING row. */
async function reclaimRow(indexed: StalePendingEntry, cutoff: number, deps: ReclaimerDependencies, settle: SettleStaleRow): Promise<RowFate> {
  let row: LedgerRow | undefined;
  try {
    // The index is eventually consistent; act only on what a strongly consistent read says.
    row = await deps.ledger.get(indexed.key);
  } catch (error) {
    deps.metrics.count(METRIC.LedgerError);
    deps.log.error('Ledger read failed; the row is left for the next run', {
      key: keyPrefix(indexed.key),
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return 'leftPending';
  }
  const now = deps.clock();
  if (!row || row.state !== 'PENDING' || row.claimedAt >= cutoff || row.leaseExpiresAt > now || isExpired(row, now)) {
    return 'skipped';
  }

  return settle(row, now, deps);
}
