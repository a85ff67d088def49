import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { NotifierFunctionOptions } from './notifier-function';

/**
 * How a consumer of the ledger's stream (the outcome publisher, the fallback trigger) reads it:
 * - from the oldest record kept (`TRIM_HORIZON`): a write made before the mapping existed is still read;
 * - a record the consumer could not handle is handed back alone (`reportBatchItemFailures`), a failed invocation is
 *   split in two (`bisectBatchOnError`), so one bad record never holds back its shard for long;
 * - retried for at most {@link LEDGER_STREAM_MAX_RECORD_AGE} or {@link LEDGER_STREAM_RETRY_ATTEMPTS} times, then the
 *   batch's place in the stream goes to the on-failure queue (retained, alarmed): the stream keeps the records
 *   24 hours, so well within that an operator can read them again (docs/operations.md).
 */
export const LEDGER_STREAM_BATCH_SIZE = 100;
export const LEDGER_STREAM_RETRY_ATTEMPTS = 20;
export const LEDGER_STREAM_MAX_RECORD_AGE = Duration.hours(6);

/** What a function on the ledger's stream is built with (the outcome publisher, the fallback trigger). */
export interface LedgerStreamFunctionProps
  extends Pick<NotifierFunctionOptions, 'entry' | 'timeout' | 'memorySize' | 'runtime' | 'logRetention' | 'logEncryptionKey'> {
  /** The send ledger; its stream carries new and old images (lib/notifier-ledger-table.ts turns it on). */
  readonly table: dynamodb.ITable;
  /** The classes of the bulk lane, when the stack has lanes. @default - none */
  readonly bulkClasses?: readonly string[];
  /** The CloudWatch namespace its metrics go to. */
  readonly metricsNamespace: string;
  /** KMS key of the on-failure queue. @default - SQS-managed server-side encryption (SSE-SQS) */
  readonly queueEncryptionKey?: kms.IKey;
}

/** The function settings of {@link LedgerStreamFunctionProps}, as createNotifierFunction takes them. */
export function streamFunctionOptions(props: LedgerStreamFunctionProps): Pick<NotifierFunctionOptions, 'entry' | 'timeout' | 'memorySize' | 'runtime' | 'logRetention' | 'logEncryptionKey'> {
  const { entry, timeout, memorySize, runtime, logRetention, logEncryptionKey } = props;
  return { entry, timeout, memorySize, runtime, logRetention, logEncryptionKey };
}

/** What {@link consumeLedgerStream} wires. */
export interface LedgerStreamConsumerProps {
  /** The send ledger; its stream carries new and old images (lib/notifier-ledger-table.ts). */
  readonly table: dynamodb.ITable;
  /** The event filters of the mapping: only the writes this consumer acts on invoke it. */
  readonly filters: readonly Record<string, unknown>[];
  /** What the parked batches point at, for the queue's removal-policy reason: "outcomes producers have not heard of". */
  readonly consumerName: string;
  /** KMS key of the on-failure queue. @default - SQS-managed server-side encryption (SSE-SQS) */
  readonly queueEncryptionKey?: kms.IKey;
}

/** The mapping {@link consumeLedgerStream} adds and where it parks what it gave up on. */
export interface LedgerStreamConsumer {
  /** Where the mapping parks a batch it gave up on (its shard and sequence numbers, not the records). */
  readonly failedBatchQueue: sqs.Queue;
  readonly eventSource: lambdaEventSources.DynamoEventSource;
}

/** Adds `fn` a filtered mapping on the ledger's stream, with a retained on-failure queue, as every consumer has it. */
export function consumeLedgerStream(scope: Construct, fn: lambda.Function, props: LedgerStreamConsumerProps): LedgerStreamConsumer {
  const failedBatchQueue = retainedFailureQueue(scope, 'FailedBatches', {
    queueEncryptionKey: props.queueEncryptionKey,
    destinationOf: `the ${props.consumerName} stream mapping`,
  });
  const eventSource = new lambdaEventSources.DynamoEventSource(props.table, {
    startingPosition: lambda.StartingPosition.TRIM_HORIZON,
    batchSize: LEDGER_STREAM_BATCH_SIZE,
    bisectBatchOnError: true,
    reportBatchItemFailures: true,
    retryAttempts: LEDGER_STREAM_RETRY_ATTEMPTS,
    maxRecordAge: LEDGER_STREAM_MAX_RECORD_AGE,
    onFailure: new lambdaEventSources.SqsDlq(failedBatchQueue),
    filters: props.filters.map((pattern) => lambda.FilterCriteria.filter({ ...pattern })),
  });
  fn.addEventSource(eventSource);
  Validations.of(fn.role ?? fn).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'dynamodb:ListStreams (granted by the DynamoDB event source) supports no resource-level permissions; the stream reads are on the table stream ARN.',
  });
  if (props.queueEncryptionKey) acknowledgeQueueKeyGrant(fn);
  return { failedBatchQueue, eventSource };
}

/** What {@link retainedFailureQueue} makes. */
export interface RetainedFailureQueueProps {
  /** @default - SQS-managed server-side encryption (SSE-SQS) */
  readonly queueEncryptionKey?: kms.IKey;
  /** Whose on-failure destination it is, for cdk-nag's reason: "the status function". */
  readonly destinationOf: string;
}

/**
 * A queue where a function's or a mapping's failures are parked for a redrive: kept 14 days, and it outlives
 * `cdk destroy`, like the ledger it points into. It is itself a dead-letter destination, so it has none of its own.
 */
export function retainedFailureQueue(scope: Construct, id: string, props: RetainedFailureQueueProps): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: props.queueEncryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
    encryptionMasterKey: props.queueEncryptionKey,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the on-failure destination of ${props.destinationOf}; it has an alarm and a runbook entry.`,
  });
  return queue;
}

/** cdk-nag on CDK's grant of a customer-managed queue key to a function that sends to the queue. */
export function acknowledgeQueueKeyGrant(fn: lambda.Function): void {
  Validations.of(fn.role ?? fn).acknowledge(
    ...['kms:GenerateDataKey*', 'kms:ReEncrypt*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason: "CDK grants the queue's customer-managed key to its sender; KMS names these action families with a wildcard (GenerateDataKey, GenerateDataKeyWithoutPlaintext, ...).",
    })),
  );
}
