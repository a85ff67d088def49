import { ledgerErrorReason, ledgerRetryCanFix } from '../adapters/ledger-error-retry';
import { ttlSeconds } from '../core/ledger/ledger-decision';
import type { Claim } from '../core/ledger/ledger-record';
import { METRIC } from '../core/observability/metric-names';
import type { Release, TerminalWrite } from '../core/ledger/send-ledger';
import type { MessageResult, SettledBy } from './delivery-context';
import { count, type DeliveryAttempt, logContext } from './delivery-attempt';
import type { KeptLedgerWrite } from './kept-ledger-writes';
import { persistently } from './persistent-write';

/**
 * Records a terminal outcome on the row, fenced on this attempt's claim. A write the ledger refuses
 * (the claim was taken over) leaves the message unsettled (`claim-lost`); a write that fails keeps a known
 * provider outcome for later (see {@link keep}) and throws.
 */
export async function finish(
  attempt: DeliveryAttempt,
  claim: Claim,
  terminal: TerminalWrite,
  settledBy: Exclude<SettledBy, 'earlier-attempt'>,
): Promise<MessageResult> {
  const { ctx, trace } = attempt;
  const now = ctx.clock();
  // From the row's first claim, never from now: the outcome does not move the row's TTL out (review defect 3).
  const expiresAt = ttlSeconds(trace.firstClaimAt ?? now, ctx.timing);
  let completed: boolean;
  try {
    completed = await persistently(() => ctx.ledger.complete(claim, terminal, now, expiresAt));
  } catch (error) {
    // The outcome of our own provider call is kept and written later (nothing left to release);
    // one without a provider call is handed back instead, as any unsent claim.
    // Whether kept or not, the claim stays held: a call that may have reached the provider is never released.
    if (trace.mayHaveReachedProvider) keep(attempt, { kind: 'complete', claim, terminal, nowMs: now, expiresAt }, error);
    throw error;
  }
  if (completed) {
    trace.held = undefined;
    return { settled: true, state: terminal.state, settledBy };
  }
  // Only possible if our lease ran out mid-attempt (a broken timing invariant or a paused process).
  count(attempt, METRIC.ClaimLost);
  ctx.log.error('Claim was taken over before the outcome could be recorded', { ...logContext(attempt), outcome: terminal.state });
  return { settled: false, why: 'claim-lost' };
}

/** Hands the claim back, fenced, so the next delivery takes it over at once. */
export async function release(attempt: DeliveryAttempt, claim: Claim, handBack: Release): Promise<void> {
  await persistently(() => attempt.ctx.ledger.release(claim, handBack, attempt.ctx.clock()));
  attempt.trace.held = undefined;
}

/**
 * After a ledger request failed: a claim this attempt may hold, on a message it certainly did
 * not send, is handed back, so the next delivery takes it over at once instead of waiting for
 * the lease and then treating a dead claim as a possible send. A claim or takeover whose own
 * request failed may still execute later (a copy held up in the network): it is written as
 * already released, so that copy then fails its condition instead of taking the row for nobody.
 * Fenced on our own claim otherwise. Best effort: the ledger may still be down.
 * The attempt's last step (deliver calls it once, then drops the attempt), so it leaves the trace as it is.
 */
export async function releaseAfterLedgerError(attempt: DeliveryAttempt, error: unknown): Promise<void> {
  const { ctx, trace } = attempt;
  const claim = trace.held;
  if (!claim || trace.mayHaveReachedProvider) return;
  const handBack: Release = { reason: 'transient', detail: `LedgerError: ${error instanceof Error ? error.name : 'unknown'}`, lastAmbiguousAt: undefined };
  const unconfirmed = trace.unconfirmed;
  try {
    const released = unconfirmed
      ? await persistently(() => ctx.ledger.releaseUnconfirmed(unconfirmed, handBack, ctx.clock()))
      : await ctx.ledger.release(claim, handBack, ctx.clock());
    if (released) count(attempt, METRIC.ClaimReleasedAfterLedgerError);
  } catch (releaseError) {
    keep(attempt, unconfirmed ? { kind: 'release-unconfirmed', attempt: unconfirmed, release: handBack } : { kind: 'release', claim, release: handBack }, releaseError);
  }
}

/**
 * The ledger is unreachable, and what this attempt knows ("never sent", or the outcome of its send)
 * must not die with the invocation: the execution environment keeps the write and makes it when
 * the ledger answers again (see kept-ledger-writes.ts). Without an environment memory, or if this
 * environment never runs again, the lease runs out instead and the next receive sees an owner
 * that died. Only what a retry can fix is kept (throttling, a 5xx, the network, the SDK's retryable errors): a write
 * the ledger refuses for good would be made again at every invocation of the environment, and every write kept
 * behind it would wait (review defect 2); it is counted and dropped with its reason instead.
 */
function keep(attempt: DeliveryAttempt, entry: DistributiveOmit<KeptLedgerWrite, 'dimensions'>, error: unknown): void {
  const { ctx, plan } = attempt;
  const kept = ctx.keptWrites;
  if (!kept) return;
  const dimensions = { channel: plan.identity.channel, messageClass: plan.messageClass.name };
  if (!ledgerRetryCanFix(error)) {
    ctx.metrics.count(METRIC.KeptLedgerWriteDropped, dimensions);
    ctx.log.error('Ledger refused a write for good: not kept, a retry cannot fix it; its next receive will see an owner that died', {
      ...logContext(attempt),
      write: entry.kind,
      reason: ledgerErrorReason(error),
    });
    return;
  }
  const forgotten = kept.keep({ ...entry, dimensions });
  count(attempt, entry.kind === 'complete' ? METRIC.OutcomeKept : METRIC.UnsentClaimKept);
  ctx.log.warn('Ledger unreachable: keeping what this attempt knows, to write it when the ledger answers', { ...logContext(attempt), write: entry.kind });
  if (forgotten) {
    ctx.metrics.count(METRIC.KeptLedgerWriteForgotten, forgotten.dimensions);
    ctx.log.error('Too many ledger writes kept: the oldest is forgotten, and its next receive will see an owner that died', { kept: kept.size });
  }
}

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
