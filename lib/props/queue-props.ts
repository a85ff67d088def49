import type { Duration } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/**
 * A queue created outside the construct (for example shared with other consumers).
 * Its settings must be declared so the timing invariants can still be checked at synth.
 */
export interface ExistingQueue {
  /** The queue the sender consumes. */
  readonly queue: sqs.IQueue;
  /** Its dead-letter queue; the sender also moves invalid events there, with their reason. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The queue's visibility timeout (must be at least 6 x the sender function timeout). */
  readonly visibilityTimeout: Duration;
  /** The queue's message retention period. */
  readonly retentionPeriod: Duration;
  /** The dead-letter queue's message retention period. */
  readonly deadLetterRetentionPeriod: Duration;
  /** The redrive policy's maxReceiveCount (at least 5). */
  readonly maxReceiveCount: number;
}

/**
 * The queues each lane consumes: created (with their timing) or one existing queue, their encryption, and how long
 * a message may still be replayed. Resolved by `resolveSettings` (lib/notifier-settings.ts), whose
 * `settingsViolations` checks the timing invariants.
 */
export interface QueueProps {
  /**
   * Consume an existing queue instead of creating one (one lane: `lanes` must be left out or `false`).
   * @default - a queue and a dead-letter queue are created per lane
   */
  readonly existingQueue?: ExistingQueue;
  /**
   * Visibility timeout of the created queue.
   * @default - 6 x `functionTimeout`
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Message retention of the created queue.
   * @default Duration.days(4)
   */
  readonly queueRetention?: Duration;
  /**
   * Message retention of the created dead-letter queue.
   * @default Duration.days(14)
   */
  readonly deadLetterQueueRetention?: Duration;
  /**
   * Receives before a message moves to the dead-letter queue (at least 5, and enough that a message
   * throttled for 24 hours still has receives left with `throttleBackoff`: 80 with the default backoff, 84 for the
   * urgent lane's 1 s first step).
   * @default 100
   */
  readonly maxReceiveCount?: number;
  /**
   * KMS key for the created queues (the main queue, its dead-letter queue and the status function's
   * failed-events queue). Overrides `encryptionKey` for the queues.
   * @default - `encryptionKey` when given, else SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
  /**
   * One customer-managed KMS key for the ledger table, the queues and the log groups. The functions'
   * roles get encrypt/decrypt on it. A key defined in the same app also gets the key-policy statement
   * CloudWatch Logs needs (scoped to this account's log groups); an imported key's policy must already
   * allow `logs.<region>.amazonaws.com`, and, when producers publish through SNS or EventBridge,
   * `sns.amazonaws.com` / `events.amazonaws.com`.
   * @default - AWS-managed keys: DynamoDB's AWS managed key, SSE-SQS, CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * How long after leaving the queues a message may still be replayed (e.g. redriven from the DLQ).
   * The ledger must remember it that long, so ledger retention >= queue + DLQ retention + this.
   * @default Duration.days(7)
   */
  readonly replayWindow?: Duration;
}
