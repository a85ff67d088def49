import { keyPrefix } from '../core/event/idempotency-key';
import type { Claim, LedgerRow } from '../core/ledger/ledger-record';
import type { MetricName } from '../core/observability/metric-names';
import type { UnconfirmedClaim } from '../core/ledger/send-ledger';
import type { DeliveryContext } from './delivery-context';
import type { MessagePlan } from './message-plan';

/**
 * What this attempt may hold on the ledger, as the phases learn it: the one piece of state they share, because
 * a ledger error may end the attempt at any await and its recovery (held-claim-writes.ts,
 * `releaseAfterLedgerError`) must know what to hand back. Each phase writes it at the moment a fact changes;
 * nothing else reads it.
 */
export interface AttemptTrace {
  /**
   * The claim this attempt holds or may hold: set before a claim or takeover request leaves, since a
   * request whose response is lost may still have been written.
   */
  held: Claim | undefined;
  /** The claim or takeover request in flight, until it answers: if it fails, its result is unknown. */
  unconfirmed: UnconfirmedClaim | undefined;
  /** True from the provider call until its answer proves nothing was sent. */
  mayHaveReachedProvider: boolean;
  /** The held row's first claim (its `createdAt`, epoch ms): the row's TTL counts from it, whatever is written later. */
  firstClaimAt: number | undefined;
}

/** One delivery of one logical message: the plan, the ports, this attempt's owner token and its trace. */
export interface DeliveryAttempt {
  readonly plan: MessagePlan;
  readonly ctx: DeliveryContext;
  /** A fresh random token per processing attempt; never a transport id. */
  readonly ownerToken: string;
  readonly trace: AttemptTrace;
}

/** A claim this attempt holds, and what the row said when it was taken: the hand-off from acquire to the later phases. */
export interface HeldClaim {
  readonly claim: Claim;
  /** When an earlier attempt's call may have reached the provider (ledger clock), if one did. */
  readonly lastAmbiguousAt: number | undefined;
  /** The row as taken over; none on a fresh claim. */
  readonly previous: LedgerRow | undefined;
  /** The message's first claim (the row's `createdAt`): the time its limits count it at. */
  readonly countAtMs: number;
  /**
   * The plan the later phases send, when it is not the attempt's own: a row taken over whose first claim wrote the
   * message in another locale than this delivery's event asks for is sent in the row's (message-plan.ts `inLocale`).
   * @default the attempt's plan
   */
  readonly plan?: MessagePlan;
}

/** A new attempt at `plan`, with its own owner token and nothing held yet. */
export function newDeliveryAttempt(plan: MessagePlan, ctx: DeliveryContext): DeliveryAttempt {
  return { plan, ctx, ownerToken: ctx.newOwnerToken(), trace: { held: undefined, unconfirmed: undefined, mayHaveReachedProvider: false, firstClaimAt: undefined } };
}

/** Counts `name` with the message's channel and class. */
export function count(attempt: DeliveryAttempt, name: MetricName): void {
  attempt.ctx.metrics.count(name, { channel: attempt.plan.identity.channel, messageClass: attempt.plan.messageClass.name });
}

/** The fields every log line of the attempt carries: ids and a key prefix, never an address or a body. */
export function logContext(attempt: DeliveryAttempt): Record<string, unknown> {
  const { identity, key, messageClass, locale } = attempt.plan;
  // Stryker disable next-line ObjectLiteral: the fields of log lines only (what they must never hold is tested with the logs)
  return {
    key: keyPrefix(key),
    eventId: identity.eventId,
    recipientId: identity.recipientId,
    channel: identity.channel,
    templateId: identity.templateId,
    ...(locale ? { locale: locale.locale } : {}),
    messageClass: messageClass.name,
  };
}
