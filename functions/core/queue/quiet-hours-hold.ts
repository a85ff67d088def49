import { MAX_VISIBILITY_SECONDS } from './visibility-backoff';

/**
 * Room for what SQS counts from the receive before the sender can ask: the 12 hours start "from the time that Amazon
 * SQS receives the ReceiveMessage request" (SQS Developer Guide, "Processing messages in a timely manner"), and
 * Lambda's poller long-polls, so the request may be up to 20 s old (ReceiveMessage's longest WaitTimeSeconds) when
 * the message comes back; the rest is for the clocks' disagreement. The guide's own example: 43,195 s "will work
 * unless there is a significant delay between requesting the message via ReceiveMessage and updating the
 * visibility timeout".
 */
export const HOLD_MARGIN_SECONDS = 60;

/** What else passes between the receive and a hold's ChangeMessageVisibility. */
export interface HoldBounds {
  /** The function's timeout: the hold is asked for at most this long after the invocation started. */
  readonly functionTimeoutSeconds: number;
  /** The event source's MaximumBatchingWindowInSeconds (0 to 300): how long a record may wait for its batch. */
  readonly batchingWindowSeconds: number;
}

/**
 * The longest visibility a record held for quiet hours can be given and SQS still accept it: "The maximum
 * visibility timeout is 12 hours from the time that Amazon SQS receives the ReceiveMessage request. Extending the
 * visibility timeout does not reset the 12 hour maximum." So not 43,200 s from the ChangeMessageVisibility call, but
 * that less the batching window, the function's time and a margin. A longer wait is held again at the next receive.
 */
export function longestHoldSeconds(bounds: HoldBounds): number {
  return MAX_VISIBILITY_SECONDS - bounds.batchingWindowSeconds - bounds.functionTimeoutSeconds - HOLD_MARGIN_SECONDS;
}

/** The hold when the settings are not known: Lambda's longest function timeout (900 s) and SQS batching window (300 s). */
export const LONGEST_HOLD_FOR_ANY_SETTINGS = longestHoldSeconds({ functionTimeoutSeconds: 900, batchingWindowSeconds: 300 });
