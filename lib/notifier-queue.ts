import type * as kms from 'aws-cdk-lib/aws-kms';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ExistingQueue } from './notifier-props';
import type { NotifierSettings } from './notifier-settings';

/** The queue the sender consumes and its dead-letter queue. */
export interface NotifierQueues {
  /** The queue producers send notification events to. */
  readonly queue: sqs.IQueue;
  /** Its dead-letter queue (exhausted retries and invalid events). */
  readonly deadLetterQueue: sqs.IQueue;
}

/** Where the notifier's queues come from. */
export interface NotifierQueuesOptions {
  /**
   * Consume this queue instead of creating one (its settings are in `settings` already).
   * @default - `Queue` and `DeadLetterQueue` are created in the scope
   */
  readonly existingQueue?: ExistingQueue;
  /** Retention, visibility timeout and receive count of created queues. */
  readonly settings: NotifierSettings;
  /**
   * KMS key of created queues.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * Prefix of the created queues' ids (a lane's: `Bulk` makes `BulkQueue` and `BulkDeadLetterQueue`).
   * @default '' (`Queue` and `DeadLetterQueue`)
   */
  readonly idPrefix?: string;
}

/**
 * The existing queue pair, or `DeadLetterQueue` and `Queue` (with `idPrefix`) created in `scope`: encrypted, TLS-only,
 * redriving to the dead-letter queue after `maxReceiveCount` receives.
 */
export function notifierQueues(scope: Construct, options: NotifierQueuesOptions): NotifierQueues {
  const { existingQueue, settings, encryptionKey, idPrefix = '' } = options;
  if (existingQueue) return { queue: existingQueue.queue, deadLetterQueue: existingQueue.deadLetterQueue };
  const encryption = encryptionKey
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: encryptionKey }
    : { encryption: sqs.QueueEncryption.SQS_MANAGED };
  const deadLetterQueue = new sqs.Queue(scope, `${idPrefix}DeadLetterQueue`, {
    ...encryption,
    enforceSSL: true,
    retentionPeriod: settings.deadLetterQueueRetention,
    // Like the ledger: up to 14 days of dead-lettered notifications outlive `cdk destroy` (docs/deployment.md says how to clean up).
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const queue = new sqs.Queue(scope, `${idPrefix}Queue`, {
    ...encryption,
    enforceSSL: true,
    retentionPeriod: settings.queueRetention,
    visibilityTimeout: settings.visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}
