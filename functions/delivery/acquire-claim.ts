import { consentKeyOf } from '../core/policy/consent';
import {
  claimOf,
  type ClaimSubject,
  decideOnExistingRow,
  type ExistingRowDecision,
  newClaimRow,
  takeoverFields,
  takeoverNeedsRequest,
} from '../core/ledger/ledger-decision';
import type { Claim, LedgerRow } from '../core/ledger/ledger-record';
import { METRIC } from '../core/observability/metric-names';
import { packRequest, type PackedRequest } from '../core/ledger/stored-request';
import { packFallbackPlan } from '../core/fallback/fallback-plan';
import type { MessageResult } from './delivery-context';
import { count, type DeliveryAttempt, type HeldClaim, logContext } from './delivery-attempt';
import type { MessagePlan } from './message-plan';

/**
 * The acquire phase: this attempt ends up holding the message's claim (a fresh claim, or a fenced takeover of
 * a released or dead one), or with the answer that it must not (settled already, owned by a live worker).
 */
export type Acquired = HeldClaim | MessageResult;

/** Claims the key, or decides what the existing row means. At most two claim rounds (TTL-expired row). */
export async function acquireClaim(attempt: DeliveryAttempt): Promise<Acquired> {
  const { ctx, plan, trace } = attempt;
  const { ledger, clock, timing } = ctx;
  const kept = keptForReclaimer(attempt);
  if (ctx.readBeforeClaim) {
    const existing = await ledger.get(plan.key);
    const decision = existing && decide(attempt, existing);
    if (existing && decision && decision.kind !== 'expired') return onExistingRow(attempt, existing, decision, kept);
  }
  const discoverable = ctx.claimsDiscoverable ?? true;
  // Packed only for a claim the reclaimer may have to finish; the happy path's claim holds identifiers only.
  const request = discoverable ? kept() : undefined;
  for (let round = 0; round < 2; round += 1) {
    const now = clock();
    const row = newClaimRow({ subject: claimSubject(attempt), ownerToken: attempt.ownerToken, nowMs: now, timing, discoverable, request, pendingShards: ctx.pendingIndexShards });
    trace.held = claimOf(row);
    trace.firstClaimAt = row.createdAt;
    trace.unconfirmed = { kind: 'claim', row };
    const result = await ledger.claim(row, now);
    trace.unconfirmed = undefined;
    if (result.claimed) return { claim: claimOf(row), lastAmbiguousAt: undefined, previous: undefined, countAtMs: row.createdAt };
    trace.held = undefined;
    const existing = result.existing ?? (await ledger.get(plan.key));
    if (!existing) continue; // deleted by TTL between the two requests: claim afresh

    const decision = decide(attempt, existing);
    if (decision.kind === 'expired') continue;
    return onExistingRow(attempt, existing, decision, kept);
  }
  return { settled: false, why: 'owned-by-another-worker' };
}

/**
 * A row read elsewhere (the reclaimer's index walk), decided on and taken over fenced on its claim version.
 * A row that changed since it was read makes that takeover fail: `owned-by-another-worker`, never a second send.
 */
export async function resumeRow(attempt: DeliveryAttempt, row: LedgerRow): Promise<Acquired> {
  const decision = decide(attempt, row);
  if (decision.kind === 'expired') return { settled: false, why: 'row-expired' };
  return onExistingRow(attempt, row, decision, keptForReclaimer(attempt));
}

/** What an existing, unexpired row means for this attempt: done, back off, or take it over (fenced). */
async function onExistingRow(
  attempt: DeliveryAttempt,
  existing: LedgerRow,
  decision: Exclude<ExistingRowDecision, { kind: 'expired' }>,
  kept: () => PackedRequest | undefined,
): Promise<Acquired> {
  const { ctx, plan, trace } = attempt;
  switch (decision.kind) {
    case 'done':
      count(attempt, METRIC.DuplicateSuppressed);
      ctx.log.info('Duplicate suppressed: message already settled', { ...logContext(attempt), state: decision.state });
      return { settled: true, state: decision.state, settledBy: 'earlier-attempt' };
    case 'back-off':
      count(attempt, METRIC.ConcurrentClaimBackoff);
      return { settled: false, why: 'owned-by-another-worker' };
    case 'take-over': {
      // The row's language, fixed by its first claim, whatever this delivery's event asks for.
      const own = inRowLocale(attempt.plan, existing);
      const packed = own === attempt.plan ? kept : keptForReclaimer({ ...attempt, plan: own });
      const discoverable = ctx.claimsDiscoverable;
      const fields = takeoverFields({
        row: existing,
        ownerToken: attempt.ownerToken,
        nowMs: ctx.clock(),
        timing: ctx.timing,
        lastAmbiguousAt: decision.lastAmbiguousAt,
        discoverable,
        request: takeoverNeedsRequest(existing, { discoverable }) ? packed() : undefined,
        pendingShards: ctx.pendingIndexShards,
      });
      const claim: Claim = { key: plan.key, ownerToken: attempt.ownerToken, claimVersion: fields.claimVersion };
      trace.held = claim;
      trace.firstClaimAt = existing.createdAt;
      trace.unconfirmed = { kind: 'takeover', key: plan.key, fields };
      const taken = await ctx.ledger.takeOver(plan.key, fields);
      trace.unconfirmed = undefined;
      if (ctx.keptWrites?.holdsUnsent(existing)) {
        // Our own environment's claim, never sent: taken back, or someone else's by now.
        ctx.keptWrites.forgetUnsent(existing);
        count(attempt, taken ? METRIC.UnsentClaimReleased : METRIC.UnsentClaimAlreadyTaken);
      }
      if (!taken) {
        trace.held = undefined;
        count(attempt, METRIC.ConcurrentClaimBackoff);
        return { settled: false, why: 'owned-by-another-worker' };
      }
      count(attempt, METRIC.StaleClaimTakeover);
      ctx.log.info('Took over a stale or released claim', {
        ...logContext(attempt),
        previousRelease: existing.lastRelease ?? 'none (owner died)',
        attempts: fields.attempts,
      });
      return { claim, lastAmbiguousAt: decision.lastAmbiguousAt, previous: existing, countAtMs: existing.createdAt, ...(own === attempt.plan ? {} : { plan: own }) };
    }
  }
}

/**
 * The plan in the locale the row records, when its first claim wrote the message in another than this plan's (a
 * producer corrected the recipient's language and published the event again): one message, in one language, even
 * when the first attempt may have reached the provider. The plan as it is when the row has no locale, agrees, or
 * the template no longer has the row's variant.
 */
function inRowLocale(plan: MessagePlan, row: LedgerRow): MessagePlan {
  if (row.locale === undefined || plan.locale === undefined || row.locale === plan.locale.locale) return plan;
  return plan.inLocale?.(row.locale) ?? plan;
}

/** The state machine on a row, told whether the row's claim is one of this environment's unsent ones. */
function decide(attempt: DeliveryAttempt, row: LedgerRow): ExistingRowDecision {
  const { ctx } = attempt;
  return decideOnExistingRow(row, ctx.clock(), { abandonedUnsent: ctx.keptWrites?.holdsUnsent(row) ?? false });
}

/** What a fresh claim row says about its message: its identity, class and, for a bulk class, the destination's consent key. */
function claimSubject(attempt: DeliveryAttempt): ClaimSubject {
  const { identity, key, messageClass, occurredAt, prepared, locale, fallback, replaces } = attempt.plan;
  const consentKey = prepared.ok && messageClass.bulk ? consentKeyOf(prepared.request.message) : undefined;
  return {
    key,
    ...identity,
    ...(locale ? { locale: locale.locale } : {}),
    messageClass: messageClass.name,
    occurredAt,
    ...(consentKey ? { consentKey } : {}),
    // The next channel's plan goes with the first claim: the write that settles this row is its fallback's trigger.
    ...(fallback ? { fallbackPlan: packFallbackPlan(fallback.plan), fallbackKey: fallback.key } : {}),
    ...(replaces ? { replaces } : {}),
  };
}

/**
 * The message packed for a row the reclaimer may have to finish, made at the first call and at most once per
 * attempt (only a claim that needs it calls). Nothing when the plan has no message (it cannot be addressed or
 * rendered) or the packed message is larger than a row keeps: such a message is still sent, and only if this
 * attempt dies does the reclaimer end it, by class policy or as RequestNotStored.
 */
function keptForReclaimer(attempt: DeliveryAttempt): () => PackedRequest | undefined {
  let made: { readonly packed: PackedRequest | undefined } | undefined;
  return () => (made ??= { packed: pack(attempt) }).packed;
}

function pack(attempt: DeliveryAttempt): PackedRequest | undefined {
  const { prepared } = attempt.plan;
  if (!prepared.ok) return undefined;
  const packing = packRequest(prepared.request.message);
  if (packing.ok) return packing.packed;
  count(attempt, METRIC.RequestTooLargeToStore);
  attempt.ctx.log.warn('Message too large to keep for the reclaimer', { ...logContext(attempt), reason: packing.reason });
  return undefined;
}
