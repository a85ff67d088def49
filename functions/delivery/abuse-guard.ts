import { destinationSuppression } from '../core/destination-policy';
import { countDigest, describeLimits, scopeCounts } from '../core/message-limits';
import type { SendRequest } from '../core/rendered-message';
import { LIMIT_REASON, type Suppression } from '../core/suppression';
import type { DeliveryContext } from './delivery-context';
import type { MessagePlan } from './message-plan';

/** What the guard decided for a message about to be sent. */
export type GuardVerdict =
  | { readonly kind: 'send' }
  | { readonly kind: 'suppress'; readonly suppression: Suppression }
  /** The limit store failed: neither send unchecked nor suppress. */
  | { readonly kind: 'store-failed'; readonly error: unknown };

/**
 * The abuse controls between a held claim and the send: the destination rules first (free), then each
 * limit counter of the message's class, in order, each one conditional write. A counter that refuses
 * stops the message; the counters before it keep their count (a refused message may use a slot of a
 * wider scope: the safe direction, never one send more).
 *
 * `countAtMs` is the message's first claim time, so every attempt of it counts in the same windows.
 */
export async function guardMessage(
  plan: MessagePlan,
  request: SendRequest,
  countAtMs: number,
  ctx: Pick<DeliveryContext, 'destinations' | 'limitStore'>,
): Promise<GuardVerdict> {
  if (ctx.destinations) {
    const refused = destinationSuppression(request.message, ctx.destinations);
    if (refused) return { kind: 'suppress', suppression: refused };
  }
  const store = ctx.limitStore;
  if (!store) return { kind: 'send' };
  // A class without limits has no counters: nothing is counted.
  const counters = scopeCounts(plan.messageClass.name, plan.messageClass.limits, { ...plan.identity, address: request.message.to }, countAtMs);
  const digest = countDigest(plan.identity.eventId);
  for (const counter of counters) {
    let result;
    try {
      result = await store.count(counter, digest);
    } catch (error) {
      return { kind: 'store-failed', error };
    }
    if (result === 'refused') {
      const reason = LIMIT_REASON[counter.scope];
      return {
        kind: 'suppress',
        suppression: { reason, detail: `${reason}: class ${plan.messageClass.name} allows ${describeLimits(counter.limits)} per ${counter.scope}` },
      };
    }
  }
  return { kind: 'send' };
}
