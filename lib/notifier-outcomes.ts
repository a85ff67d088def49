import * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { consumeLedgerStream, streamFunctionOptions, type LedgerStreamFunctionProps, LEDGER_STREAM_BATCH_SIZE, LEDGER_STREAM_MAX_RECORD_AGE, LEDGER_STREAM_RETRY_ATTEMPTS } from './ledger-stream-consumer';
import { OUTCOME_STREAM_FILTERS } from './outcome-stream-filter';
import { ENV } from '../functions/core/sender-config';
import { loadOutcomesConfig, OUTCOMES_ENV } from '../functions/outcomes/outcomes-config';
import { createNotifierFunction } from './notifier-function';

/** What {@link OutcomeEvents} wires. */
export interface OutcomeEventsProps extends LedgerStreamFunctionProps {
  /** @default - a bus created here */
  readonly eventBus?: events.IEventBus;
  /** The classes of the bulk lane, when the stack has lanes (events then name their lane). @default - no lane in the events */
  readonly bulkClasses?: readonly string[];
}

/** How the publisher reads the ledger's stream: as every stream consumer does (lib/ledger-stream-consumer.ts). */
export const OUTCOME_BATCH_SIZE = LEDGER_STREAM_BATCH_SIZE;
export const OUTCOME_RETRY_ATTEMPTS = LEDGER_STREAM_RETRY_ATTEMPTS;
export const OUTCOME_MAX_RECORD_AGE = LEDGER_STREAM_MAX_RECORD_AGE;

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
      ...streamFunctionOptions(props),
      description: 'Idempotent notification outcomes: ledger stream -> one event per state change on the event bus',
      environment,
    });
    this.fn = publisher.fn;
    this.logGroup = publisher.logGroup;

    const stream = consumeLedgerStream(this, this.fn, {
      table: props.table,
      filters: OUTCOME_STREAM_FILTERS,
      consumerName: 'outcome feed',
      queueEncryptionKey: props.queueEncryptionKey,
    });
    this.failedBatchQueue = stream.failedBatchQueue;
    this.eventSource = stream.eventSource;
    this.eventBus.grantPutEventsTo(this.fn);
  }
}
