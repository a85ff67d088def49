import type { Clock } from '../core/clock';
import { keyPrefix } from '../core/idempotency-key';
import type { Release } from '../core/ledger-decision';
import type { Claim, LedgerRow } from '../core/ledger-record';
import type { LogPort } from '../core/log-port';
import { METRIC } from '../core/metric-names';
import type { MetricDimensions, MetricsRecorder } from '../core/metrics-recorder';
import type { SendLedger, UnconfirmedClaim } from '../core/send-ledger';

/**
 * A claim an attempt certainly never sent and could not hand back, because the ledger failed:
 * a claim it held, or a claim or takeover whose own request failed with an unknown result.
 */
export type UnsentClaim = (
  | { readonly kind: 'held'; readonly claim: Claim }
  | { readonly kind: 'unconfirmed'; readonly attempt: UnconfirmedClaim }
) & {
  readonly release: Release;
  /** The message's dimensions, for the metrics its release counts. */
  readonly dimensions: MetricDimensions;
};

/** What {@link UnsentClaims.releaseAll} needs. */
export interface UnsentClaimsContext {
  readonly ledger: Pick<SendLedger, 'release' | 'releaseUnconfirmed'>;
  readonly clock: Clock;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** Releases in flight at once once the ledger answers. */
  readonly concurrency: number;
}

/** What one {@link UnsentClaims.releaseAll} did. */
export interface ReleaseRound {
  readonly released: number;
  /** Already taken over or settled by someone else: nothing left to release. */
  readonly alreadyTaken: number;
  /** Still kept: the ledger did not answer. */
  readonly kept: number;
}

/** How many unsent claims one execution environment keeps. @see UnsentClaims */
export const DEFAULT_UNSENT_CLAIMS_CAPACITY = 1_000;

/**
 * The claims this execution environment never sent and could not release, kept in memory so that
 * "not sent" outlives a ledger outage: the environment releases them, fenced as before, at the
 * start of its next invocation, before any new work, and recognises them if one of its own
 * deliveries meets one first. Without this, the next receive sees a claim whose owner died and
 * treats it as a possible send. A claim whose environment never gets another invocation is not
 * saved (see docs/design.md, "When the ledger is unreachable").
 *
 * In memory, not in another store: the only store that could hold it durably across environments
 * is one more service to fail and pay for on every message; an environment lives for minutes to
 * hours and is invoked again long before SQS redelivers (visibility timeout > claim timeout).
 */
export class UnsentClaims {
  private readonly entries: UnsentClaim[] = [];

  constructor(
    /** Entries kept at most; the oldest is forgotten (and counted) beyond. @default DEFAULT_UNSENT_CLAIMS_CAPACITY */
    private readonly capacity = DEFAULT_UNSENT_CLAIMS_CAPACITY,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** Keeps an unsent claim; returns the one forgotten to make room, if any. */
  keep(entry: UnsentClaim): UnsentClaim | undefined {
    this.entries.push(entry);
    return this.entries.length > this.capacity ? this.entries.shift() : undefined;
  }

  /** Whether the row's current claim is one kept here (so its owner certainly never sent it). */
  holds(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
    return this.entries.some((entry) => sameClaim(claimOfEntry(entry), row));
  }

  /** Drops the entry for the row's claim (one of our deliveries took it back). */
  forget(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): void {
    const index = this.entries.findIndex((entry) => sameClaim(claimOfEntry(entry), row));
    if (index >= 0) this.entries.splice(index, 1);
  }

  /**
   * Releases every kept claim, fenced on its own claim exactly as the failed release would have been.
   * The oldest goes first, alone: if the ledger still does not answer, the rest wait for the next
   * invocation instead of each costing a full round of SDK attempts.
   */
  async releaseAll(ctx: UnsentClaimsContext): Promise<ReleaseRound> {
    const round = { released: 0, alreadyTaken: 0, kept: 0 };
    const first = this.entries[0];
    if (!first) return round;
    if (!(await this.releaseOne(first, ctx, round))) {
      round.kept = this.entries.length;
      return round;
    }
    const rest = [...this.entries];
    for (let i = 0; i < rest.length; i += ctx.concurrency) {
      await Promise.all(rest.slice(i, i + ctx.concurrency).map((entry) => this.releaseOne(entry, ctx, round)));
    }
    round.kept = this.entries.length;
    return round;
  }

  /** True when the ledger answered (released, or the claim is no longer ours); false when it failed. */
  private async releaseOne(entry: UnsentClaim, ctx: UnsentClaimsContext, round: { released: number; alreadyTaken: number }): Promise<boolean> {
    let released: boolean;
    try {
      released =
        entry.kind === 'held'
          ? await ctx.ledger.release(entry.claim, entry.release, ctx.clock())
          : await ctx.ledger.releaseUnconfirmed(entry.attempt, entry.release, ctx.clock());
    } catch {
      return false;
    }
    this.entries.splice(this.entries.indexOf(entry), 1);
    const key = keyPrefix(claimOfEntry(entry).key);
    if (released) {
      round.released += 1;
      ctx.metrics.count(METRIC.UnsentClaimReleased, entry.dimensions);
      ctx.log.info('Released a claim kept through a ledger outage: it was never sent', { key });
    } else {
      round.alreadyTaken += 1;
      ctx.metrics.count(METRIC.UnsentClaimAlreadyTaken, entry.dimensions);
      ctx.log.warn('A claim kept through a ledger outage was taken over first: that takeover saw an ambiguity that never was', { key });
    }
    return true;
  }
}

/** The claim an entry stands for, as the row would show it if its request executed. */
function claimOfEntry(entry: UnsentClaim): Claim {
  if (entry.kind === 'held') return entry.claim;
  const attempt = entry.attempt;
  return attempt.kind === 'claim'
    ? { key: attempt.row.key, ownerToken: attempt.row.ownerToken, claimVersion: attempt.row.claimVersion }
    : { key: attempt.key, ownerToken: attempt.fields.ownerToken, claimVersion: attempt.fields.claimVersion };
}

function sameClaim(a: Claim, b: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
  return a.key === b.key && a.ownerToken === b.ownerToken && a.claimVersion === b.claimVersion;
}
