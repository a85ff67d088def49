import { InvalidEventError, RetryLaterError, type RecordBackoff } from '../core/errors';
import { claimMustBeDiscoverable } from '../core/ledger/stale-claim-discovery';
import { deliver, FRESH_CLAIM, type DeliveryContext, type MessageResult } from '../delivery/deliver-message';
import type { MessagePlan } from '../delivery/message-plan';
import { deadLetter } from './dead-letter-record';
import type { QueueRecord, RecordContext, RecordResult } from './record-context';

/**
 * Delivers the messages of one record, at most `ctx.limit` at once. Resolves when every message is terminal;
 * throws RetryLaterError naming `what` otherwise (with a back-off when every unsettled message waits on a pace).
 */
export async function deliverPlans(plans: readonly MessagePlan[], record: QueueRecord, ctx: RecordContext, what: string): Promise<RecordResult> {
  const delivery: DeliveryContext = {
    ...ctx,
    claimsDiscoverable: claimMustBeDiscoverable(record.receive, ctx.redelivery, ctx.clock()),
    readBeforeClaim: (ctx.readBeforeClaimOnRedelivery ?? true) && (record.receive?.receiveCount ?? 1) > 1,
  };
  const messages = await Promise.all(
    plans.map((plan) =>
      ctx.limit(
        async (): Promise<MessageResult> =>
          ctx.hasTimeForDelivery && !ctx.hasTimeForDelivery()
            ? { settled: false, why: 'out-of-time' }
            : deliver(plan, FRESH_CLAIM, delivery),
      ),
    ),
  );
  const unsettled = messages.filter((m): m is Extract<MessageResult, { settled: false }> => !m.settled);
  const refused = unsettled.find((m) => m.why === 'ledger-refused');
  if (refused) {
    // Every receive would fail the same way: dead-lettered now with why, the record's other messages with it (a
    // redrive after the fix skips those already settled, by their keys).
    await deadLetter(record, new InvalidEventError('LedgerRefusedClaim', `${refused.detail}; ${unsettled.length} of ${messages.length} messages not settled`), ctx);
    return { kind: 'dead-lettered', messages };
  }
  if (unsettled.length > 0) {
    const reasons = [...new Set(unsettled.map((m) => (m.why === 'transient-failure' ? `${m.why}:${m.cause}` : m.why)))].join(', ');
    throw new RetryLaterError(
      `${unsettled.length} of ${messages.length} messages of ${what} not settled (${reasons})`,
      backoffFor(unsettled),
    );
  }
  return { kind: 'settled', messages };
}

/** Reasons a message waits that are waited out by backing the record off rather than by the queue's visibility timeout. */
const PACED: ReadonlySet<string> = new Set([
  'rate-limited',
  'transient-failure',
  // A failed store is waited out like a provider's pace: the message was neither sent nor suppressed.
  'limit-store-unavailable',
  'consent-store-unavailable',
  'quiet-hours',
]);

/**
 * A record backs off only when every message it still owes waits on the providers' pace or on quiet
 * hours; any other reason (another worker's claim, a ledger error) keeps the queue's visibility timeout.
 * A record whose messages all wait for quiet hours to end comes back at the earliest end (each message
 * held longer is deferred again then); one that also waits on a provider backs off as for the provider,
 * and its quiet message is simply deferred again at the next receive.
 */
function backoffFor(unsettled: readonly Extract<MessageResult, { settled: false }>[]): RecordBackoff | undefined {
  if (!unsettled.every((m) => PACED.has(m.why))) return undefined;
  const quietEnds = unsettled.flatMap((m) => (m.why === 'quiet-hours' ? [m.untilMs] : []));
  if (quietEnds.length === unsettled.length) return { until: Math.min(...quietEnds) };
  return unsettled.some((m) => m.why === 'transient-failure' && m.cause === 'quota-exhausted') ? 'pause' : 'throttle';
}
