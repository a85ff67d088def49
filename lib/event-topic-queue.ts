import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** Who publishes a provider's events to the topic, and how the topic and its key are described. */
export interface EventTopicQueueProps {
  /** The service principal that publishes (`ses.amazonaws.com`, `sms-voice.amazonaws.com`), for this account only. */
  readonly publisher: string;
  /** The Sid of the key policy statement that lets the publisher use the topic's key. */
  readonly keyStatementSid: string;
  /** What the topic carries, in its key's description and its display name (`SES events`, ...). */
  readonly description: string;
  /** What the dead-letter queue is, for its cdk-nag acknowledgement. */
  readonly deadLetterQueueOf: string;
  /** Receives of one events batch before it is dead-lettered. */
  readonly maxReceiveCount: number;
  /** The status function's timeout: the queue's visibility timeout is six times it (Lambda's advice for SQS sources). */
  readonly statusTimeout: Duration;
  /**
   * KMS key of the topic; only a key whose policy this app can change (the publisher's grant goes into it).
   * @default - a key of its own, with rotation
   */
  readonly topicEncryptionKey?: kms.IKey;
  /**
   * KMS key of the queue and its dead-letter queue.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
}

/** A provider's events topic and the queue pair it delivers to. */
export interface EventTopicQueue {
  readonly topic: sns.Topic;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

/**
 * The durable half of a provider's delivery-status path, shared by SES and End User Messaging: an encrypted SNS topic
 * the provider may publish to (its key usable by the publisher for this account only), an SQS queue subscribed with raw
 * delivery (4 days), and its dead-letter queue (14 days); both queues outlive `cdk destroy` like the ledger.
 *
 * Built in `scope` itself, not in a construct of its own: the resources keep the ids (`EventTopicKey`, `EventTopic`,
 * `Events`, `EventDeadLetters`) and so the logical ids they had, and a deployed stack replaces none of its queues.
 * The topic's resource policy is the caller's, since what may publish (which configuration sets) differs.
 */
export function addEventTopicQueue(scope: Construct, props: EventTopicQueueProps): EventTopicQueue {
  const account = Stack.of(scope).account;
  const topicKey = props.topicEncryptionKey ?? new kms.Key(scope, 'EventTopicKey', { enableKeyRotation: true, description: `${props.description} topic of the notifier` });
  // The provider publishes to an encrypted topic only if it may use the topic's key (for this account only).
  topicKey.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: props.keyStatementSid,
      principals: [new iam.ServicePrincipal(props.publisher)],
      actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
    /* allowNoOp */ true,
  );
  const topic = new sns.Topic(scope, 'EventTopic', { masterKey: topicKey, enforceSSL: true, displayName: `${props.description} of the notifier` });

  const encryption = props.queueEncryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED;
  const deadLetterQueue = new sqs.Queue(scope, 'EventDeadLetters', {
    encryption,
    encryptionMasterKey: props.queueEncryptionKey,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    // Unrecorded delivery evidence outlives `cdk destroy`, like the ledger it belongs to.
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter queue of the ${props.deadLetterQueueOf}; it has an alarm and a runbook entry.`,
  });
  const queue = new sqs.Queue(scope, 'Events', {
    encryption,
    encryptionMasterKey: props.queueEncryptionKey,
    enforceSSL: true,
    retentionPeriod: Duration.days(4),
    visibilityTimeout: Duration.seconds(props.statusTimeout.toSeconds() * 6),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  topic.addSubscription(new SqsSubscription(queue, { rawMessageDelivery: true }));
  return { topic, queue, deadLetterQueue };
}
