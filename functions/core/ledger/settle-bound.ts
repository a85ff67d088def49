import type { LedgerTiming } from './ledger-decision';
import type { MessageClass } from '../policy/message-class';

/**
 * The longest any message may be retried after its first claim, as a share of the ledger retention: half, so a row
 * that ends at its bound still deduplicates every redelivery and replay for the other half of its life.
 */
export const SETTLE_BOUND_SHARE_OF_RETENTION = 0.5;

/**
 * How long after its first claim (epoch ms) a message of `messageClass` may still be retried: its class's
 * `settleWithinSeconds`, never more than half the retention (the bound of a class that sets none). "Nothing is
 * retried forever" (review defect 3): an otp row whose provider answered 500 on every call was resent at every
 * reclaimer run for weeks, since the ambiguity loop only stops calls the provider never answered. Pure.
 */
export function settleBoundMs(messageClass: Pick<MessageClass, 'settleWithinSeconds'>, timing: Pick<LedgerTiming, 'retentionMs'>): number {
  const ceiling = timing.retentionMs * SETTLE_BOUND_SHARE_OF_RETENTION;
  return messageClass.settleWithinSeconds === undefined ? ceiling : Math.min(messageClass.settleWithinSeconds * 1000, ceiling);
}

/** Whether a message first claimed at `firstClaimAt` (the row's `createdAt`, epoch ms) is past its bound at `nowMs`. */
export function isPastSettleBound(
  firstClaimAt: number,
  messageClass: Pick<MessageClass, 'settleWithinSeconds'>,
  timing: Pick<LedgerTiming, 'retentionMs'>,
  nowMs: number,
): boolean {
  return nowMs >= firstClaimAt + settleBoundMs(messageClass, timing);
}
