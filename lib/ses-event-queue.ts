import { type Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { addEventTopicQueue } from './event-topic-queue';

/** Receives of one SES events batch before it is dead-lettered: a ledger outage is retried for minutes first. */
export const SES_EVENTS_MAX_RECEIVE_COUNT = 10;
/** SES events per status invocation (an SQS event source's batch). */
export const SES_EVENTS_BATCH_SIZE = 10;

/** What {@link SesEventQueue} wires. */
export interface SesEventQueueProps {
  /** The configuration sets whose events it carries (one per lane, or the one given). */
  readonly configurationSets: readonly ses.IConfigurationSet[];
  /** The SES event types published. */
  readonly events: readonly ses.EmailSendingEvent[];
  /** Add the SNS event destination to each configuration set (false: their owner does). */
  readonly addEventDestinations: boolean;
  /**
   * KMS key of the topic.
   * @default - a key of its own (SES may use it for this account only)
   */
  readonly topicEncryptionKey?: kms.IKey;
  /**
   * KMS key of the queues.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
  /** The status function's timeout: the queue's visibility timeout is six times it (Lambda's advice for SQS sources). */
  readonly statusTimeout: Duration;
}

/**
 * SES's half of the delivery-status path, on a durable route: each configuration set publishes its events to an SNS
 * topic, an SQS queue (raw delivery) keeps them through a throttled or failing status Lambda or a ledger outage
 * (retried on each visibility timeout, then 14 days in the dead-letter queue with an alarm), and the status Lambda
 * takes them in batches. EventBridge, the previous route, delivers SES events "best effort" (its event reference);
 * a lost `Delivery` would make a transactional e-mail's class resend it after its wait.
 */
export class SesEventQueue extends Construct {
  public readonly topic: sns.Topic;
  public readonly queue: sqs.Queue;
  public readonly deadLetterQueue: sqs.Queue;
  /** The configuration sets' SNS event destinations, unless `addEventDestinations` was false. */
  public readonly eventDestinations: readonly ses.ConfigurationSetEventDestination[];

  constructor(scope: Construct, id: string, props: SesEventQueueProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const account = stack.account;
    ({ topic: this.topic, queue: this.queue, deadLetterQueue: this.deadLetterQueue } = addEventTopicQueue(this, {
      publisher: 'ses.amazonaws.com',
      keyStatementSid: 'AllowSesToPublishEvents',
      description: 'SES events',
      deadLetterQueueOf: 'SES events queue',
      maxReceiveCount: SES_EVENTS_MAX_RECEIVE_COUNT,
      statusTimeout: props.statusTimeout,
      topicEncryptionKey: props.topicEncryptionKey,
      queueEncryptionKey: props.queueEncryptionKey,
    }));
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'SesPublishesTheseConfigurationSetsEvents',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: {
            'aws:SourceArn': props.configurationSets.map((set) =>
              stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: set.configurationSetName }),
            ),
          },
        },
      }),
    );


    this.eventDestinations = props.addEventDestinations
      ? props.configurationSets.map((configurationSet, index) => {
          const destination = new ses.ConfigurationSetEventDestination(this, index === 0 ? 'EventDestination' : `EventDestination${index + 1}`, {
            configurationSet,
            destination: ses.EventDestination.snsTopic(this.topic),
            events: [...props.events],
          });
          // SES checks that it may publish when the destination is created: the topic's policy must be in place first.
          destination.node.addDependency(this.topic);
          return destination;
        })
      : [];
  }

  /**
   * Hands the queued events to the status function in batches of {@link SES_EVENTS_BATCH_SIZE}, each record on its
   * own (a partial batch response brings back only a record whose ledger write failed), at most `maxConcurrency`
   * invocations at once (2-1000, an SQS event source's range; undefined: the source's own scaling).
   */
  deliverTo(status: lambda.Function, maxConcurrency: number | undefined): void {
    status.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: SES_EVENTS_BATCH_SIZE,
        reportBatchItemFailures: true,
        ...(maxConcurrency !== undefined && maxConcurrency >= 2 ? { maxConcurrency: Math.min(maxConcurrency, 1000) } : {}),
      }),
    );
  }
}
