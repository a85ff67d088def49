import { systemClock } from '../core/clock';
import type { DeliveryOutcome, TransientCause } from '../core/delivery-provider';
import { gatherEvidence, type RowEvidenceFields } from '../core/delivery-evidence';
import { keyPrefix } from '../core/idempotency-key';
import {
  claimOf,
  decideOnExistingRow,
  type ExistingRowDecision,
  newClaimRow,
  takeoverFields,
  ttlSeconds,
} from '../core/ledger-decision';
import type { Claim, LedgerRow } from '../core/ledger-record';
import { resolveAmbiguity } from '../core/message-class';
import { METRIC, type MetricName } from '../core/metric-names';
import type { SendRequest } from '../core/rendered-message';
import type { UnconfirmedClaim, Release, TerminalWrite } from '../core/send-ledger';
import type { DeliveryContext, MessageResult, SettledBy } from './delivery-context';
import type { KeptLedgerWrite } from './kept-ledger-writes';
import { guardMessage } from './abuse-guard';
import type { MessagePlan } from './message-plan';
import { persistently } from './persistent-write';

export type { DeliveryContext, MessageResult, SettledBy, UnsettledReason } from './delivery-context';

/**
 * Where a delivery starts: a fresh claim of the plan's key (the sender), or a row read elsewhere
 * (the reclaimer), which is decided on and taken over fenced on its claim version. A row that
 * changed since it was read makes that takeover fail, which is an answer
 * (`owned-by-another-worker`), never a second send.
 */
export type DeliveryStart = { readonly kind: 'claim' } | { readonly kind: 'resume'; readonly row: LedgerRow };

/** The sender's start: claim the key. */
export const FRESH_CLAIM: DeliveryStart = { kind: 'claim' };

/**
 * Claim, send, record: the at-most-once core for one logical message, from either start, with the
 * same class policy and the same send. The result says whether the message is settled and, if so,
 * how (by this call's provider request, on evidence, by policy, ...): callers read that, never metrics.
 * Never throws; a ledger error leaves the message unsettled so SQS redelivers it.
 */
export async function deliver(plan: MessagePlan, start: DeliveryStart, ctx: DeliveryContext): Promise<MessageResult> {
  const attempt = new DeliveryAttempt(plan, ctx);
  return guarded(attempt, ctx, () => (start.kind === 'claim' ? attempt.run() : attempt.resume(start.row)));
}

async function guarded(attempt: DeliveryAttempt, ctx: DeliveryContext, work: () => Promise<MessageResult>): Promise<MessageResult> {
  try {
    return await work();
  } catch (error) {
    attempt.count(METRIC.LedgerError);
    ctx.log.error('Ledger request failed; the record will be redelivered', {
      ...attempt.logContext(),
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    await attempt.releaseAfterLedgerError(error);
    return { settled: false, why: 'ledger-error' };
  }
}

/** A claim held by this attempt, and what the row said when it was taken. */
interface Acquired {
  readonly claim: Claim;
  readonly lastAmbiguousAt: number | undefined;
  readonly previous: LedgerRow | undefined;
  /** The message's first claim (the row's `createdAt`): the time its limits count it at. */
  readonly countAtMs: number;
}

class DeliveryAttempt {
  private readonly ownerToken: string;
  /**
   * The claim this attempt holds or may hold: set before a claim or takeover request leaves,
   * since a request whose response is lost may still have been written.
   */
  private held: Claim | undefined;
  /** The claim or takeover request in flight, until it answers: if it fails, its result is unknown. */
  private unconfirmed: UnconfirmedClaim | undefined;
  /** True from the provider call until its answer proves nothing was sent. */
  private mayHaveReachedProvider = false;

  constructor(
    private readonly plan: MessagePlan,
    private readonly ctx: DeliveryContext,
  ) {
    this.ownerToken = ctx.newOwnerToken();
  }

  async run(): Promise<MessageResult> {
    const claimed = await this.acquire();
    if ('settled' in claimed) return claimed;
    return this.proceed(claimed);
  }

  async resume(row: LedgerRow): Promise<MessageResult> {
    const decision = this.decide(row);
    if (decision.kind === 'expired') return { settled: false, why: 'row-expired' };
    const taken = await this.onExistingRow(row, decision);
    if ('settled' in taken) return taken;
    return this.proceed(taken);
  }

  /** Holding the claim: settle an earlier ambiguous attempt per class policy, then send. */
  private async proceed(acquired: Acquired): Promise<MessageResult> {
    const { claim, lastAmbiguousAt, previous, countAtMs } = acquired;
    if (lastAmbiguousAt !== undefined) {
      const resolved = await this.resolvePreviousAmbiguity(claim, lastAmbiguousAt, previous);
      if (resolved) return resolved;
    }
    const prepared = this.plan.prepared;
    if (!prepared.ok) {
      this.count(METRIC.PermanentFailure);
      this.ctx.log.warn('Message cannot be sent', { ...this.logContext(), reason: prepared.reason });
      return this.finish(claim, { state: 'FAILED', reason: prepared.reason }, 'unsendable');
    }
    // From here on the request is in hand: the guard and the send take it, never the plan's union again.
    const guarded = await this.guard(claim, prepared.request, countAtMs, lastAmbiguousAt);
    if (guarded) return guarded;
    return this.send(acquired, prepared.request);
  }

  /** Destination rules and the class's limits (see abuse-guard.ts): undefined when the message may be sent. */
  private async guard(claim: Claim, request: SendRequest, countAtMs: number, lastAmbiguousAt: number | undefined): Promise<MessageResult | undefined> {
    const verdict = await guardMessage(this.plan, request, countAtMs, this.ctx);
    switch (verdict.kind) {
      case 'send':
        return undefined;
      case 'suppress': {
        const { reason, detail } = verdict.suppression;
        this.ctx.metrics.count(METRIC.Suppressed, { messageClass: this.plan.messageClass.name, reason });
        this.ctx.log.warn('Message suppressed: never sent', { ...this.logContext(), reason, detail });
        return this.finish(claim, { state: 'SUPPRESSED', suppression: verdict.suppression }, 'policy');
      }
      case 'store-failed': {
        const name = verdict.error instanceof Error ? verdict.error.name : 'unknown';
        this.count(METRIC.LimitStoreError);
        this.ctx.log.error('Limit store failed; the claim is handed back unsent and the record backs off', { ...this.logContext(), error: name });
        await this.release(claim, { reason: 'transient', detail: `LimitStoreUnavailable: ${name}`, lastAmbiguousAt });
        return { settled: false, why: 'limit-store-unavailable' };
      }
    }
  }

  /** Claims the key, or decides what the existing row means. At most two claim rounds (TTL-expired row). */
  private async acquire(): Promise<MessageResult | Acquired> {
    const { ledger, clock, timing } = this.ctx;
    if (this.ctx.readBeforeClaim) {
      const existing = await ledger.get(this.plan.key);
      const decision = existing && this.decide(existing);
      if (existing && decision && decision.kind !== 'expired') return this.onExistingRow(existing, decision);
    }
    for (let round = 0; round < 2; round += 1) {
      const now = clock();
      const row = newClaimRow({ subject: this.subject(), ownerToken: this.ownerToken, nowMs: now, timing, discoverable: this.ctx.claimsDiscoverable });
      this.held = claimOf(row);
      this.unconfirmed = { kind: 'claim', row };
      const result = await ledger.claim(row, now);
      this.unconfirmed = undefined;
      if (result.claimed) return { claim: claimOf(row), lastAmbiguousAt: undefined, previous: undefined, countAtMs: row.createdAt };
      this.held = undefined;
      const existing = result.existing ?? (await ledger.get(this.plan.key));
      if (!existing) continue; // deleted by TTL between the two requests: claim afresh

      const decision = this.decide(existing);
      if (decision.kind === 'expired') continue;
      return this.onExistingRow(existing, decision);
    }
    return { settled: false, why: 'owned-by-another-worker' };
  }

  /** What an existing, unexpired row means for this attempt: done, back off, or take it over (fenced). */
  private async onExistingRow(
    existing: LedgerRow,
    decision: Exclude<ExistingRowDecision, { kind: 'expired' }>,
  ): Promise<MessageResult | Acquired> {
    const { ledger, clock, timing } = this.ctx;
    switch (decision.kind) {
      case 'done':
        this.count(METRIC.DuplicateSuppressed);
        this.ctx.log.info('Duplicate suppressed: message already settled', { ...this.logContext(), state: decision.state });
        return { settled: true, state: decision.state, settledBy: 'earlier-attempt' };
      case 'back-off':
        this.count(METRIC.ConcurrentClaimBackoff);
        return { settled: false, why: 'owned-by-another-worker' };
      case 'take-over': {
        const fields = takeoverFields({
          row: existing,
          ownerToken: this.ownerToken,
          nowMs: clock(),
          timing,
          lastAmbiguousAt: decision.lastAmbiguousAt,
          discoverable: this.ctx.claimsDiscoverable,
        });
        const claim: Claim = { key: this.plan.key, ownerToken: this.ownerToken, claimVersion: fields.claimVersion };
        this.held = claim;
        this.unconfirmed = { kind: 'takeover', key: this.plan.key, fields };
        const taken = await ledger.takeOver(this.plan.key, fields);
        this.unconfirmed = undefined;
        if (this.ctx.keptWrites?.holdsUnsent(existing)) {
          // Our own environment's claim, never sent: taken back, or someone else's by now.
          this.ctx.keptWrites.forgetUnsent(existing);
          this.count(taken ? METRIC.UnsentClaimReleased : METRIC.UnsentClaimAlreadyTaken);
        }
        if (!taken) {
          this.held = undefined;
          this.count(METRIC.ConcurrentClaimBackoff);
          return { settled: false, why: 'owned-by-another-worker' };
        }
        this.count(METRIC.StaleClaimTakeover);
        this.ctx.log.info('Took over a stale or released claim', {
          ...this.logContext(),
          previousRelease: existing.lastRelease ?? 'none (owner died)',
          attempts: fields.attempts,
        });
        return {
          claim,
          lastAmbiguousAt: decision.lastAmbiguousAt,
          previous: existing,
          countAtMs: existing.createdAt,
        };
      }
    }
  }

  /**
   * An earlier attempt may have reached the provider: its evidence wait runs from `lastAmbiguousAt`,
   * and the row, written since that call, may hold delivery evidence of it. Undefined: send now.
   */
  private async resolvePreviousAmbiguity(
    claim: Claim,
    lastAmbiguousAt: number,
    previous: LedgerRow | undefined,
  ): Promise<MessageResult | undefined> {
    const next = await this.settleAmbiguity(claim, {
      since: lastAmbiguousAt,
      rowEvidence: previous,
      known: previous,
      unknownReason: 'OutcomeUnknown: an earlier attempt may have sent it; class policy is give-up',
    });
    switch (next.action) {
      case 'settled':
        return next.result;
      case 'wait':
        await this.release(claim, { reason: 'ambiguous', detail: 'waiting for delivery evidence', lastAmbiguousAt });
        return { settled: false, why: 'waiting-for-evidence' };
      case 'send':
        if (next.possibleDuplicate) {
          this.count(METRIC.ResentAfterAmbiguity);
          this.ctx.log.warn(RESENT_AFTER_AMBIGUITY_LOG, this.logContext());
        }
        return undefined;
    }
  }

  /**
   * The one place a call that may have reached the provider meets the message class's policy.
   * The two answers that settle the message are recorded here: SENT on evidence (under the provider's
   * own id when the row carries one, else a placeholder) and UNKNOWN (give-up). Waiting and sending
   * again are handed back, since what follows differs for an earlier attempt's call and this one's.
   */
  private async settleAmbiguity(claim: Claim, ambiguity: Ambiguity): Promise<AmbiguityNext> {
    const messageClass = this.plan.messageClass;
    // The row's own delivery evidence is free and settles any class; only `lookup` asks the provider.
    const evidence = await gatherEvidence(ambiguity.rowEvidence, messageClass.onAmbiguous === 'lookup' ? this.lookup() : undefined);
    const resolution = resolveAmbiguity(messageClass, evidence, this.ctx.clock() - ambiguity.since);
    switch (resolution.action) {
      case 'mark-sent':
        this.count(METRIC.SentByEvidence);
        return {
          action: 'settled',
          result: await this.finish(claim, {
            state: 'SENT',
            // Not indexed (no smsMessageId): no delivery log carries a placeholder, nor SES's id.
            providerMessageId: ambiguity.known?.providerMessageId ?? `evidence:${this.plan.key}`,
          }, 'evidence'),
        };
      case 'give-up':
        this.count(METRIC.GaveUpAfterAmbiguity);
        return { action: 'settled', result: await this.finish(claim, { state: 'UNKNOWN', reason: ambiguity.unknownReason }, 'policy') };
      case 'wait':
        return { action: 'wait' };
      case 'send':
        return { action: 'send', possibleDuplicate: resolution.possibleDuplicate };
    }
  }

  private async send({ claim, lastAmbiguousAt, previous }: Acquired, request: SendRequest): Promise<MessageResult> {
    const provider = this.ctx.providers[request.message.channel];
    const realNow = (this.ctx.realTime ?? systemClock)();
    const latestStart = this.ctx.latestSendStartMs?.() ?? realNow + this.ctx.sendTimeoutMs;
    if (realNow > latestStart) {
      // Slow ledger writes ate the invocation: a call now could outlive it, leaving a send nobody recorded.
      await this.release(claim, { reason: 'transient', detail: 'OutOfTime: too little of the invocation left to send and record', lastAmbiguousAt });
      return { settled: false, why: 'out-of-time' };
    }
    let outcome: DeliveryOutcome;
    for (let retry = 0; ; retry += 1) {
      if (this.ctx.governor && !(await this.ctx.governor.acquire(request.message.channel, latestStart))) {
        this.count(METRIC.RateLimitedDeferral);
        await this.release(claim, { reason: 'transient', detail: 'RateLimited: no send slot before the invocation ends', lastAmbiguousAt });
        return { settled: false, why: 'rate-limited' };
      }
      this.mayHaveReachedProvider = true;
      try {
        outcome = await provider.send({ ...request, claimVersion: claim.claimVersion }, AbortSignal.timeout(this.ctx.sendTimeoutMs));
      } catch (error) {
        outcome = { kind: 'ambiguous', reason: `ProviderAdapterError: ${(error as Error).message ?? String(error)}` };
      }
      if (outcome.kind === 'transient' || outcome.kind === 'permanent') this.mayHaveReachedProvider = false;
      const pauseMs = this.ctx.throttleRetryPausesMs?.[retry];
      const inPlace =
        outcome.kind === 'transient' && outcome.cause === 'throttled' && pauseMs !== undefined &&
        (this.ctx.realTime ?? systemClock)() + pauseMs <= latestStart;
      if (!inPlace) break;
      // Certainly not sent: the same claim sends again once the provider's second has room.
      this.count(METRIC.ProviderThrottled);
      this.ctx.governor?.throttled(request.message.channel);
      this.ctx.log.warn('Provider throttled; sending again in place', { ...this.logContext(), retry: retry + 1, pauseMs });
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }

    switch (outcome.kind) {
      case 'sent':
        this.count(METRIC.Sent);
        return this.finish(claim, {
          state: 'SENT',
          providerMessageId: outcome.providerMessageId,
          // Only SNS SMS delivery logs look a row up by the provider's id; nothing else is indexed.
          ...(request.message.channel === 'sms' ? { smsMessageId: outcome.providerMessageId } : {}),
        }, 'provider-call');
      case 'permanent':
        this.count(METRIC.PermanentFailure);
        this.ctx.log.warn('Provider rejected the message permanently', { ...this.logContext(), reason: outcome.reason });
        return this.finish(claim, { state: 'FAILED', reason: outcome.reason }, 'provider-call');
      case 'transient':
        this.count(METRIC.TransientRetry);
        const causeMetric = TRANSIENT_CAUSE_METRIC[outcome.cause];
        if (causeMetric) this.count(causeMetric);
        // The account is past its rate: a bulk lane's governor gives way to the urgent lane's sends.
        if (outcome.cause === 'throttled') this.ctx.governor?.throttled(request.message.channel);
        this.ctx.log.warn('Provider refused for now; will retry with the same key', {
          ...this.logContext(),
          cause: outcome.cause,
          reason: outcome.reason,
        });
        // Keeps the row's earlier ambiguity, if any: this attempt proves nothing about that one.
        await this.release(claim, { reason: 'transient', detail: outcome.reason, lastAmbiguousAt });
        return { settled: false, why: 'transient-failure', cause: outcome.cause };
      case 'ambiguous':
        // This attempt is now the latest that may have reached the provider: its own evidence wait starts now.
        return this.onAmbiguous(claim, outcome.reason, previous);
    }
  }

  /** This attempt's own call may have reached the provider: its evidence wait starts now. */
  private async onAmbiguous(claim: Claim, reason: string, previous: LedgerRow | undefined): Promise<MessageResult> {
    this.count(METRIC.AmbiguousOutcome);
    this.ctx.log.warn('Provider outcome unknown', { ...this.logContext(), reason, policy: this.plan.messageClass.onAmbiguous });
    const lastAmbiguousAt = this.ctx.clock();
    const next = await this.settleAmbiguity(claim, {
      since: lastAmbiguousAt,
      // The row was read before this call: whatever evidence it holds is of an earlier one.
      rowEvidence: undefined,
      known: previous,
      unknownReason: `OutcomeUnknown: ${reason}`,
    });
    if (next.action === 'settled') return next.result;
    // 'send' or 'wait': hand the claim back marked ambiguous; the next delivery applies the policy.
    await this.release(claim, { reason: 'ambiguous', detail: reason, lastAmbiguousAt });
    return { settled: false, why: 'ambiguous-outcome' };
  }

  private async release(claim: Claim, release: Release): Promise<void> {
    await persistently(() => this.ctx.ledger.release(claim, release, this.ctx.clock()));
    this.held = undefined;
  }

  /**
   * After a ledger request failed: a claim this attempt may hold, on a message it certainly did
   * not send, is handed back, so the next delivery takes it over at once instead of waiting for
   * the lease and then treating a dead claim as a possible send. A claim or takeover whose own
   * request failed may still execute later (a copy held up in the network): it is written as
   * already released, so that copy then fails its condition instead of taking the row for nobody.
   * Fenced on our own claim otherwise. Best effort: the ledger may still be down.
   * The attempt's last step (`guarded` calls it once, then drops the attempt), so it leaves its fields as they are.
   */
  async releaseAfterLedgerError(error: unknown): Promise<void> {
    const claim = this.held;
    if (!claim || this.mayHaveReachedProvider) return;
    const release: Release = { reason: 'transient', detail: `LedgerError: ${error instanceof Error ? error.name : 'unknown'}`, lastAmbiguousAt: undefined };
    const unconfirmed = this.unconfirmed;
    try {
      const released = unconfirmed
        ? await persistently(() => this.ctx.ledger.releaseUnconfirmed(unconfirmed, release, this.ctx.clock()))
        : await this.ctx.ledger.release(claim, release, this.ctx.clock());
      if (released) this.count(METRIC.ClaimReleasedAfterLedgerError);
    } catch {
      this.keep(unconfirmed ? { kind: 'release-unconfirmed', attempt: unconfirmed, release } : { kind: 'release', claim, release });
    }
  }

  /**
   * The ledger is unreachable, and what this attempt knows ("never sent", or the outcome of its send)
   * must not die with the invocation: the execution environment keeps the write and makes it when
   * the ledger answers again (see kept-ledger-writes.ts). Without an environment memory, or if this
   * environment never runs again, the lease runs out instead and the next receive sees an owner
   * that died.
   */
  private keep(entry: DistributiveOmit<KeptLedgerWrite, 'dimensions'>): void {
    const kept = this.ctx.keptWrites;
    if (!kept) return;
    const dimensions = { channel: this.plan.identity.channel, messageClass: this.plan.messageClass.name };
    const forgotten = kept.keep({ ...entry, dimensions });
    this.count(entry.kind === 'complete' ? METRIC.OutcomeKept : METRIC.UnsentClaimKept);
    this.ctx.log.warn('Ledger unreachable: keeping what this attempt knows, to write it when the ledger answers', { ...this.logContext(), write: entry.kind });
    if (forgotten) {
      this.ctx.metrics.count(METRIC.KeptLedgerWriteForgotten, forgotten.dimensions);
      this.ctx.log.error('Too many ledger writes kept: the oldest is forgotten, and its next receive will see an owner that died', { kept: kept.size });
    }
  }

  /** The state machine on a row, told whether the row's claim is one of this environment's unsent ones. */
  private decide(row: LedgerRow): ExistingRowDecision {
    return decideOnExistingRow(row, this.ctx.clock(), { abandonedUnsent: this.ctx.keptWrites?.holdsUnsent(row) ?? false });
  }

  private async finish(claim: Claim, terminal: TerminalWrite, settledBy: Exclude<SettledBy, 'earlier-attempt'>): Promise<MessageResult> {
    const now = this.ctx.clock();
    const expiresAt = ttlSeconds(now, this.ctx.timing);
    let completed: boolean;
    try {
      completed = await persistently(() => this.ctx.ledger.complete(claim, terminal, now, expiresAt));
    } catch (error) {
      // The outcome of our own provider call is kept and written later (nothing left to release);
      // one without a provider call is handed back instead, as any unsent claim.
      // Whether kept or not, the claim stays held: a call that may have reached the provider is never released.
      if (this.mayHaveReachedProvider) this.keep({ kind: 'complete', claim, terminal, nowMs: now, expiresAt });
      throw error;
    }
    if (completed) {
      this.held = undefined;
      return { settled: true, state: terminal.state, settledBy };
    }
    // Only possible if our lease ran out mid-attempt (a broken timing invariant or a paused process).
    this.count(METRIC.ClaimLost);
    this.ctx.log.error('Claim was taken over before the outcome could be recorded', {
      ...this.logContext(),
      outcome: terminal.state,
    });
    return { settled: false, why: 'claim-lost' };
  }

  private lookup() {
    const provider = this.ctx.providers[this.plan.identity.channel];
    return provider.lookup ? () => provider.lookup!(this.plan.key) : undefined;
  }

  private subject() {
    const { identity, key, messageClass, occurredAt, prepared } = this.plan;
    return { key, ...identity, messageClass: messageClass.name, occurredAt, ...(prepared.ok ? { request: prepared.request.message } : {}) };
  }

  count(name: MetricName): void {
    this.ctx.metrics.count(name, { channel: this.plan.identity.channel, messageClass: this.plan.messageClass.name });
  }

  logContext(): Record<string, unknown> {
    const { identity, key, messageClass } = this.plan;
    // Stryker disable next-line ObjectLiteral: the fields of log lines only (what they must never hold is tested with the logs)
    return {
      key: keyPrefix(key),
      eventId: identity.eventId,
      recipientId: identity.recipientId,
      channel: identity.channel,
      templateId: identity.templateId,
      messageClass: messageClass.name,
    };
  }
}

/** The warning logged beside each `ResentAfterAmbiguity`, with the key prefix (the wire simulation counts it per key). */
export const RESENT_AFTER_AMBIGUITY_LOG = 'Resending after an unknown outcome (possible duplicate, per class policy)';

/** The metric, beside `TransientRetry`, that names why a provider certainly did not send. */
const TRANSIENT_CAUSE_METRIC: Readonly<Record<TransientCause, MetricName | undefined>> = {
  throttled: METRIC.ProviderThrottled,
  'quota-exhausted': METRIC.ProviderQuotaExhausted,
  configuration: METRIC.ProviderConfigurationFault,
  unavailable: undefined,
  unrecognised: METRIC.ProviderErrorUnrecognised,
};

/** A provider call that may have reached the provider, as {@link DeliveryAttempt.settleAmbiguity} weighs it. */
interface Ambiguity {
  /** When the call was made (ledger clock): the class's evidence wait runs from here. */
  readonly since: number;
  /** A row written after the call, whose delivery status may prove what it did. */
  readonly rowEvidence: RowEvidenceFields | undefined;
  /** The row as this attempt found it: the provider's id, when the status stream recorded one for this key. */
  readonly known: Pick<LedgerRow, 'providerMessageId'> | undefined;
  /** The UNKNOWN reason, should the class give up. */
  readonly unknownReason: string;
}

type AmbiguityNext =
  | { readonly action: 'settled'; readonly result: MessageResult }
  | { readonly action: 'wait' }
  | { readonly action: 'send'; readonly possibleDuplicate: boolean };

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
