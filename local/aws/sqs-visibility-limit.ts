/**
 * SQS's 12-hour limit on a received message's visibility, which fauxqs (checking each VisibilityTimeout against
 * 43,200 alone) does not enforce: "The maximum visibility timeout is 12 hours from the time that Amazon SQS receives
 * the ReceiveMessage request. Extending the visibility timeout does not reset the 12 hour maximum. ... if you receive
 * a message and immediately set the 12 hour maximum by sending a ChangeMessageVisibility call with VisibilityTimeout
 * equal to 43,200 seconds, it will likely fail." (Amazon SQS Developer Guide, "Processing messages in a timely
 * manner", https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-processing-messages-timely-manner.html).
 * The API reference: "If you attempt to set the VisibilityTimeout to a value greater than the maximum time left,
 * Amazon SQS returns an error" (ChangeMessageVisibility). The error SQS answers is `InvalidParameterValue`, "Value N for
 * parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200
 * seconds]" (as reported from SQS in aws/aws-sdk-net#794 and localstack/localstack#3956).
 */
export const VISIBILITY_LIMIT_SECONDS = 43_200;

/** What SQS answers a ChangeMessageVisibility past the limit (JSON protocol). */
export interface VisibilityRefusal {
  readonly __type: 'com.amazonaws.sqs#InvalidParameterValue';
  readonly message: string;
}

/** The refusal, worded as SQS words it. */
export function visibilityRefusal(seconds: number): VisibilityRefusal {
  return {
    __type: 'com.amazonaws.sqs#InvalidParameterValue',
    message: `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${VISIBILITY_LIMIT_SECONDS} seconds]`,
  };
}

/**
 * Each receipt handle's receive time (when SQS took the ReceiveMessage request that returned it), and whether a
 * new visibility would end past 12 hours from it. A handle it never saw (another queue's, or made up) is left to
 * the emulator to judge. Entries older than the limit are dropped as new ones arrive: none can be extended.
 */
export class VisibilityLimit {
  private readonly receivedAt = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The limit's time, for stamping a ReceiveMessage as it arrives. */
  now(): number {
    return this.clock();
  }

  /** Records the handles one ReceiveMessage returned, received at `requestAtMs`. */
  received(receiptHandles: readonly string[], requestAtMs: number): void {
    const oldest = this.clock() - VISIBILITY_LIMIT_SECONDS * 1000;
    for (const [handle, at] of this.receivedAt) {
      if (at >= oldest) break;
      this.receivedAt.delete(handle);
    }
    for (const handle of receiptHandles) this.receivedAt.set(handle, requestAtMs);
  }

  /** The refusal SQS would answer to setting `seconds` of visibility on `receiptHandle` now, or undefined. */
  check(receiptHandle: string, seconds: number): VisibilityRefusal | undefined {
    const at = this.receivedAt.get(receiptHandle);
    if (at === undefined || seconds === 0) return undefined;
    return this.clock() + seconds * 1000 - at > VISIBILITY_LIMIT_SECONDS * 1000 ? visibilityRefusal(seconds) : undefined;
  }
}
