import type { LaneName } from '../policy/send-lanes';

/** Where a fallback's request goes: the sender's queue of the primary's lane (its class's), now or after a delay. */
export interface FallbackQueue {
  /**
   * Puts the request on the lane's queue, visible after `delaySeconds` (0 to 900, SQS's DelaySeconds).
   * @throws when the queue did not take it (the caller hands its stream record back).
   */
  send(request: { readonly lane: LaneName; readonly body: string; readonly delaySeconds: number }): Promise<void>;
}
