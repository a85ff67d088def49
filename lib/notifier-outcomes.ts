import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { OUTCOME_STREAM_FILTERS } from './outcome-stream-filter';
import { ENV } from '../functions/core/sender-config';
import { loadOutcomesConfig, OUTCOMES_ENV } from '../functions/outcomes/outcomes-config';
import type { NotifierRuntime } from './lambda-runtime';
import { createNotifierFunction } from './notifier-function';

/** What {@link OutcomeEvents} wires. */
export interface OutcomeEventsProps {
  /** The send ledger; its stream must carry new and old images (lib/notifier-ledger-table.ts turns it on). */
  readonly table: dynamodb.ITable;
  /** @default - a bus created here */
  readonly eventBus?: events.IEventBus;
  /** The classes of the bulk lane, when the stack has lanes (events then name their lane). @default - no lane in the events */
  readonly bulkClasses?: readonly string[];
  readonly entry: string;
  readonly metricsNamespace: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly runtime: NotifierRuntime;
  readonly logRetention: logs.RetentionDays;
  /** @default - CloudWatch Logs' own encryption */
  readonly logEncryptionKey?: kms.IKey;
  /** KMS key of the on-failure queue. @default - SQS-managed server-side encryption (SSE-SQS) */
  readonly queueEncryptionKey?: kms.IKey;
}

/**
 * How the event source mapping reads the ledger's stream:
 * - from the oldest record kept (`TRIM_HORIZON`): a write made before the mapping existed is still published;
 * - a record whose events the bus did not take is handed back alone (`reportBatchItemFailures`), a failed
 *   invocation is split in two (`bisectBatchOnError`), so one bad record never holds back its shard for long;
 * - retried for at most {@link OUTCOME_MAX_RECORD_AGE} or {@link OUTCOME_RETRY_ATTEMPTS} times, then the batch's
 *   place in the stream goes to the on-failure queue (retained, alarmed): the stream keeps the records 24 hours,
 *   so well within that an operator can read them again (docs/operations.md, OutcomeFailedBatches).
 */
export const OUTCOME_BATCH_SIZE = 100;
export const OUTCOME_RETRY_ATTEMPTS = 20;
export const OUTCOME_MAX_RECORD_AGE = Duration.hours(6);

/**
 * The publisher's variables as synth writes them; the local runs (local/outcome-feed.ts) start the publisher from
 * the same function, with the local bus's name, so the two cannot drift apart. Checked as at a cold start.
 * @throws ConfigurationError when the publisher would refuse them
 */
export function outcomePublisherEnvironment(targets: {
  readonly eventBusName: string;
  readonly metricsNamespace: string;
  /** @default - no lane in the events */
  readonly bulkClasses?: readonly string[];
}): Record<string, string> {
  const environment: Record<string, string> = {
    [OUTCOMES_ENV.eventBusName]: targets.eventBusName,
    [ENV.metricsNamespace]: targets.metricsNamespace,
    ...(targets.bulkClasses ? { [OUTCOMES_ENV.bulkClasses]: targets.bulkClasses.join(',') } : {}),
  };
  loadOutcomesConfig(environment);
  return environment;
}

/**
 * The outcome feed: the ledger table's change stream, filtered to writes that may change what a producer sees,
 * through the publisher Lambda onto an EventBridge bus. The ledger write itself is the outbox: no crash between a
 * write and its event can lose the event, and the happy path writes nothing more.
 */
export class OutcomeEvents extends Construct {
  /** The bus the events are put on. */
  public readonly eventBus: events.IEventBus;
  /** The publisher function. */
  public readonly fn: lambda.Function;
  /** Its log group. */
  public readonly logGroup: logs.LogGroup;
  /** Where the mapping parks a batch it gave up on (its shard and sequence numbers, not the records). */
  public readonly failedBatchQueue: sqs.Queue;
  /** The stream's event source. */
  public readonly eventSource: lambdaEventSources.DynamoEventSource;

  constructor(scope: Construct, id: string, props: OutcomeEventsProps) {
    super(scope, id);
    this.eventBus = props.eventBus ?? new events.EventBus(this, 'Bus', { description: 'Idempotent notifier: one event per message outcome (docs/outcome-events.md)' });
    const environment = outcomePublisherEnvironment({ eventBusName: this.eventBus.eventBusArn, metricsNamespace: props.metricsNamespace, bulkClasses: props.bulkClasses });
    const publisher = createNotifierFunction(this, 'Publisher', {
      entry: props.entry,
      description: 'Idempotent notification outcomes: ledger stream -> one event per state change on the event bus',
      timeout: props.timeout,
      memorySize: props.memorySize,
      runtime: props.runtime,
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      environment,
    });
    this.fn = publisher.fn;
    this.logGroup = publisher.logGroup;

    this.failedBatchQueue = new sqs.Queue(this, 'FailedBatches', {
      encryption: props.queueEncryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: props.queueEncryptionKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // What it holds points at outcomes producers have not heard of: it outlives `cdk destroy`, like the ledger.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.failedBatchQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination of the outcome stream mapping; it has an alarm and a runbook entry.',
    });

    this.eventSource = new lambdaEventSources.DynamoEventSource(props.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: OUTCOME_BATCH_SIZE,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: OUTCOME_RETRY_ATTEMPTS,
      maxRecordAge: OUTCOME_MAX_RECORD_AGE,
      onFailure: new lambdaEventSources.SqsDlq(this.failedBatchQueue),
      filters: OUTCOME_STREAM_FILTERS.map((pattern) => lambda.FilterCriteria.filter({ ...pattern })),
    });
    this.fn.addEventSource(this.eventSource);
    Validations.of(this.fn.role ?? this.fn).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams (granted by the DynamoDB event source) supports no resource-level permissions; the stream reads are on the table stream ARN.',
    });
    this.eventBus.grantPutEventsTo(this.fn);
    if (props.queueEncryptionKey) {
      // The on-failure destination's grant on the queue's key (CDK's grantEncryptDecrypt through the queue).
      Validations.of(this.fn.role ?? this.fn).acknowledge(
        ...['kms:GenerateDataKey*', 'kms:ReEncrypt*'].map((action) => ({
          id: `AwsSolutions-IAM5[Action::${action}]`,
          reason: 'CDK grants the on-failure queue\'s customer-managed key to its sender; KMS names these action families with a wildcard (GenerateDataKey, GenerateDataKeyWithoutPlaintext, ...).',
        })),
      );
    }
  }
}
