import type { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { createNotifierFunction, type NotifierFunction, type NotifierFunctionOptions } from './notifier-function';

/** The sender: its handler and how it consumes the queue. */
export interface SenderOptions extends Omit<NotifierFunctionOptions, 'description'> {
  /**
   * Construct id of the function (its log group and role take it as prefix).
   * @default 'Sender'
   */
  readonly id?: string;
  /**
   * The lane it sends, named in its description.
   * @default - no lane (one sender for every class)
   */
  readonly lane?: string;
  /** The queue it consumes. */
  readonly queue: sqs.IQueue;
  /** SQS records per invocation. */
  readonly batchSize: number;
  /**
   * How long the event source waits to fill a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /** Most concurrent invocations the event source starts (the environment's rate shares are resolved from the same setting). */
  readonly maxConcurrency: number;
}

/**
 * The function `id` in `scope` (with `<id>Logs` and `<id>Role`), consuming `queue` with
 * partial batch failures: a record the handler reports failed is retried alone.
 */
export function createSender(scope: Construct, options: SenderOptions): NotifierFunction {
  const { id = 'Sender', lane, queue, batchSize, maxBatchingWindow, maxConcurrency, ...fn } = options;
  const sender = createNotifierFunction(scope, id, {
    ...fn,
    description: `Idempotent notification sender${lane ? ` (${lane} lane)` : ''}: SQS -> ledger claim -> SES/SNS`,
  });
  sender.fn.addEventSource(
    new SqsEventSource(queue, {
      reportBatchItemFailures: true,
      batchSize,
      maxBatchingWindow,
      maxConcurrency,
    }),
  );
  return sender;
}
