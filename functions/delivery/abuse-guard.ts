import { destinationSuppression } from '../core/policy/destination-policy';
import { countDigest, describeLimits, scopeCounts } from '../core/policy/message-limits';
import type { SendRequest } from '../core/templates/rendered-message';
import { LIMIT_REASON, type Suppression } from '../core/policy/suppression';
import type { DeliveryContext } from './delivery-context';
import type { MessagePlan } from './message-plan';

/** What the guard decided for a message about to be sent. */
export type GuardVerdict =
  | { readonly kind: 'send' }
  | { readonly kind: 'suppress'; readonly suppression: Suppression }
  /** The limit store failed: neither send unchecked nor suppress. */
  | { readonly kind: 'store-failed'; readonly error: unknown };

/**
 * The first abuse control between a held claim and the send, and the cheapest: whether the destination
 * is allowed at all (SMS countries, push applications). No request.
 */
export function checkDestination(request: SendRequest, ctx: Pick<DeliveryContext, 'destinations'>): GuardVerdict {
  const refused = ctx.destinations ? destinationSuppression(request.message, ctx.destinations) : undefined;
  return refused ? { kind: 'suppress', suppression: refused } : { kind: 'send' };
}

/**
 * The last abuse control before the send: each limit counter of the message's class, in order, each one
 * conditional write. A counter that refuses stops the message; the counters before it keep their count (a
 * refused message may use a slot of a wider scope: the safe direction, never one send more). Counted last,
 * so a message the destination rules, consent or quiet hours stop takes no slot.
 *
 * `countAtMs` is the message's first claim time, so every attempt of it counts in the same windows.
 */
export async function countLimits(
  plan: MessagePlan,
  request: SendRequest,
  countAtMs: number,
  ctx: Pick<DeliveryContext, 'limitStore'>,
): Promise<GuardVerdict> {
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
