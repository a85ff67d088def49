import { ledgerErrorReason, ledgerRetryCanFix } from '../adapters/ledger-error-retry';
import { systemClock, type Clock } from '../core/clock';
import { keyPrefix } from '../core/event/idempotency-key';
import type { Claim, LedgerRow } from '../core/ledger/ledger-record';
import type { LogPort } from '../core/observability/log-port';
import { METRIC, type MetricName } from '../core/observability/metric-names';
import type { MetricDimensions, MetricsRecorder } from '../core/observability/metrics-recorder';
import type { SendLedger, UnconfirmedClaim, Release, TerminalWrite } from '../core/ledger/send-ledger';

/**
 * A fenced ledger write an attempt owed and could not make, because the ledger failed:
 * - `release`: a claim it held and certainly never sent;
 * - `release-unconfirmed`: a claim or takeover whose own request failed with an unknown result
 *   (so certainly nothing was sent under it);
 * - `complete`: the outcome of a send it knows (SENT with the provider's id, FAILED, UNKNOWN).
 */
export type KeptLedgerWrite = (
  | { readonly kind: 'release'; readonly claim: Claim; readonly release: Release }
  | { readonly kind: 'release-unconfirmed'; readonly attempt: UnconfirmedClaim; readonly release: Release }
  | {
      readonly kind: 'complete';
      readonly claim: Claim;
      readonly terminal: TerminalWrite;
      /**
       * The failed write's own time (epoch ms): made later, it is the same request byte for byte, so a
       * late copy or SDK retry of the failed one landing after it rewrites nothing (not `resolvedAt`).
       */
      readonly nowMs: number;
      readonly expiresAt: number;
    }
) & {
  /** The message's dimensions, for the metrics the write counts. */
  readonly dimensions: MetricDimensions;
};

/** What writing the kept writes needs. */
export interface KeptLedgerWritesContext {
  readonly ledger: Pick<SendLedger, 'release' | 'releaseUnconfirmed' | 'complete'>;
  readonly clock: Clock;
  /** Real time, which {@link KeptLedgerWrites.writeUntil}'s deadline is on. @default systemClock */
  readonly realTime?: Clock;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** Writes in flight at once once the ledger answers. */
  readonly concurrency: number;
}

/** What one {@link KeptLedgerWrites.writeAll} did. */
export interface WriteRound {
  readonly written: number;
  /** The row had moved on (taken over, settled, or claimed afresh by someone else): nothing left to write. */
  readonly alreadyTaken: number;
  /** Still kept: the ledger did not answer. */
  readonly kept: number;
}

/** How many writes one execution environment keeps. @see KeptLedgerWrites */
export const DEFAULT_KEPT_WRITES_CAPACITY = 1_000;

/** Pause between two rounds while an invocation waits for the ledger to come back. */
const RETRY_PAUSE_MS = 1_000;

/**
 * The fenced ledger writes this execution environment owes, kept in memory so that what an attempt
 * knows ("never sent", "sent as id X") outlives a ledger outage: the environment makes them, fenced
 * exactly as the failed write would have been, before its invocation returns if the ledger comes
 * back in time, or else at the start of its next invocation, before any new work. A delivery of its
 * own that meets one of its unsent claims takes it back at once. Without this, the next receive sees
 * a claim whose owner died and treats it as a possible send. What it cannot save: writes of an
 * environment that never runs again (see docs/design/ledger.md, "When the ledger is unreachable").
 *
 * In memory, not in another store: a store that could hold it across environments is one more
 * service to fail and to pay for on every message; an environment is usually invoked again long
 * before SQS redelivers (visibility timeout > claim timeout).
 */
export class KeptLedgerWrites {
  private readonly entries: KeptLedgerWrite[] = [];

  constructor(
    /** Writes kept at most; the oldest is forgotten (and counted) beyond. @default DEFAULT_KEPT_WRITES_CAPACITY */
    private readonly capacity = DEFAULT_KEPT_WRITES_CAPACITY,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Keeps a write; returns the one forgotten to make room, if any. */
  keep(entry: KeptLedgerWrite): KeptLedgerWrite | undefined {
    this.entries.push(entry);
    return this.entries.length > this.capacity ? this.entries.shift() : undefined;
  }

  /** Whether the row's current claim is an unsent one kept here (its owner certainly never sent it). */
  holdsUnsent(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
    return this.entries.some((entry) => entry.kind !== 'complete' && sameClaim(claimOf(entry), row));
  }

  /** Drops the unsent entry for the row's claim (one of our deliveries took it back). */
  forgetUnsent(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): void {
    const index = this.entries.findIndex((entry) => entry.kind !== 'complete' && sameClaim(claimOf(entry), row));
    if (index >= 0) this.entries.splice(index, 1);
  }

  /**
   * Makes every kept write. The oldest goes first, alone: if the ledger still does not answer, the
   * rest wait instead of each costing a full round of SDK attempts, and it goes to the back, so that
   * one write that keeps failing is not the only one ever tried. A write the ledger refuses for good
   * is dropped (counted, with its reason logged), and the rest go on at once (review defect 2).
   */
  async writeAll(ctx: KeptLedgerWritesContext): Promise<WriteRound> {
    const round = { written: 0, alreadyTaken: 0, kept: 0 };
    const first = this.entries[0];
    const answered = first !== undefined && (await this.writeOne(first, ctx, round));
    if (first && !answered && this.entries[0] === first) this.entries.push(this.entries.shift()!);
    if (answered) {
      const rest = [...this.entries];
      for (let i = 0; i < rest.length; i += ctx.concurrency) {
        await Promise.all(rest.slice(i, i + ctx.concurrency).map((entry) => this.writeOne(entry, ctx, round)));
      }
    }
    round.kept = this.entries.length;
    return round;
  }

  /**
   * Retries the kept writes, a second apart, until none is left or the next round could outlast
   * `deadlineMs` (epoch ms on `realTime`), a round taking at most `roundMs`.
   */
  async writeUntil(ctx: KeptLedgerWritesContext, { deadlineMs, roundMs }: { readonly deadlineMs: number; readonly roundMs: number }): Promise<void> {
    const realTime = ctx.realTime ?? systemClock;
    while (this.entries.length > 0 && realTime() + RETRY_PAUSE_MS + roundMs <= deadlineMs) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      await this.writeAll(ctx);
    }
  }

  /**
   * True when the ledger answered (written, the claim is no longer ours, or refused for good and dropped);
   * false when it failed in a way a retry can fix.
   */
  private async writeOne(entry: KeptLedgerWrite, ctx: KeptLedgerWritesContext, round: { written: number; alreadyTaken: number }): Promise<boolean> {
    let written: boolean;
    try {
      written = await write(entry, ctx);
    } catch (error) {
      if (ledgerRetryCanFix(error)) return false;
      this.entries.splice(this.entries.indexOf(entry), 1);
      ctx.metrics.count(METRIC.KeptLedgerWriteDropped, entry.dimensions);
      ctx.log.error('A kept ledger write was refused for good: dropped, a retry cannot fix it', {
        key: keyPrefix(claimOf(entry).key),
        write: entry.kind,
        reason: ledgerErrorReason(error),
      });
      return true;
    }
    this.entries.splice(this.entries.indexOf(entry), 1);
    const key = keyPrefix(claimOf(entry).key);
    const metric = METRICS[entry.kind === 'complete' ? 'complete' : 'release'][written ? 'written' : 'taken'];
    ctx.metrics.count(metric, entry.dimensions);
    if (written) round.written += 1;
    else round.alreadyTaken += 1;
    if (written) ctx.log.info('Wrote a ledger write kept through a ledger outage', { key, write: entry.kind });
    else ctx.log.warn('A write kept through a ledger outage found its row moved on', { key, write: entry.kind });
    return true;
  }
}

const METRICS: Readonly<Record<'release' | 'complete', Readonly<Record<'written' | 'taken', MetricName>>>> = {
  // The row moved on first: taken over (an ambiguity counted that never was), or claimed afresh after a claim that never executed.
  release: { written: METRIC.UnsentClaimReleased, taken: METRIC.UnsentClaimAlreadyTaken },
  // Taken over first: the outcome is lost, as when a lease runs out mid-attempt.
  complete: { written: METRIC.OutcomeRecordedLater, taken: METRIC.ClaimLost },
};

function write(entry: KeptLedgerWrite, ctx: KeptLedgerWritesContext): Promise<boolean> {
  switch (entry.kind) {
    case 'release':
      return ctx.ledger.release(entry.claim, entry.release, ctx.clock());
    case 'release-unconfirmed':
      return ctx.ledger.releaseUnconfirmed(entry.attempt, entry.release, ctx.clock());
    case 'complete':
      return ctx.ledger.complete(entry.claim, entry.terminal, entry.nowMs, entry.expiresAt);
  }
}

/** The claim an entry stands for, as the row would show it if its request executed. */
function claimOf(entry: KeptLedgerWrite): Claim {
  if (entry.kind !== 'release-unconfirmed') return entry.claim;
  const attempt = entry.attempt;
  return attempt.kind === 'claim'
    ? { key: attempt.row.key, ownerToken: attempt.row.ownerToken, claimVersion: attempt.row.claimVersion }
    : { key: attempt.key, ownerToken: attempt.fields.ownerToken, claimVersion: attempt.fields.claimVersion };
}

function sameClaim(a: Claim, b: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
  return a.key === b.key && a.ownerToken === b.ownerToken && a.claimVersion === b.claimVersion;
}
