/**
 * Which claims the reclaimer must be able to find.
 *
 * A worker that dies between claim and outcome leaves a PENDING row. Its queue message was not
 * deleted, so SQS delivers it again and that delivery takes the stale claim over: the queue
 * itself finds the claim, at no write cost. The queue stops doing so only when this receive may
 * be the message's last: the redrive policy moves it to the dead-letter queue after
 * `maxReceiveCount` receives, or retention ends before the next receive. Only such claims are
 * written into the pending index (one index write), so a first delivery costs one claim and one
 * outcome write. A claim on an earlier receive that is then purged from the queue by hand is not
 * found by the reclaimer; see docs/design/ledger.md, "Finding stale claims".
 */

/** How the source queue redelivers. Absent settings make every claim discoverable. */
export interface RedeliveryPolicy {
  /** The redrive policy's maxReceiveCount. */
  readonly maxReceiveCount: number;
  /** The source queue's message retention (ms). */
  readonly retentionMs: number;
  /**
   * Longest time from this receive to the next one: the visibility timeout, or the longest
   * visibility backoff when that is longer (ms).
   */
  readonly longestRedeliveryGapMs: number;
}

/** What the sender knows of the receive it is processing. */
export interface ReceiveInfo {
  /** SQS `ApproximateReceiveCount` (1 on the first receive). */
  readonly receiveCount: number;
  /** SQS `SentTimestamp`: when the message entered this queue (epoch ms). */
  readonly sentAtMs: number | undefined;
}

/**
 * Whether a claim made on this receive must carry the pending-index entry: true when SQS may
 * not deliver the message again (last receive before the dead-letter queue, or too close to the
 * end of retention), when the receive is not described, or when the policy is unknown.
 */
export function claimMustBeDiscoverable(
  receive: ReceiveInfo | undefined,
  policy: RedeliveryPolicy | undefined,
  nowMs: number,
): boolean {
  if (!receive || !policy) return true;
  if (receive.receiveCount >= policy.maxReceiveCount) return true;
  if (receive.sentAtMs === undefined) return true;
  return receive.sentAtMs + policy.retentionMs - nowMs <= policy.longestRedeliveryGapMs;
}
