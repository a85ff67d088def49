import { setMaxListeners } from 'node:events';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { ExecutionEnvironment, type KillReason } from '../execution-environment';
import { lambdaContext, type BatchHandler } from '../lambda-event-source';
import { LOCAL_REGION } from '../local-dynamo';
import { failedIds } from '../partial-batch-response';
import { receiveCount, toSqsRecord } from './sqs-record';

/** Where the poller reads and what it invokes. */
export interface SqsEventSourceOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** A fresh handler for each execution environment (a cold start builds a new one). */
  readonly createHandler: (env: ExecutionEnvironment) => BatchHandler;
  /** The function timeout: an invocation still running then is killed and acknowledges nothing. */
  readonly functionTimeoutMs: number;
  /** Records per invocation at most, 1 to 10 (one ReceiveMessage). @default 10 */
  readonly batchSize?: number;
  /**
   * Invocations at once (the event source mapping's MaximumConcurrency; Lambda's own minimum is 2,
   * 1 is allowed here for ordered local runs). @default 2
   */
  readonly maximumConcurrency?: number;
  /** Long-poll wait of each ReceiveMessage, in whole seconds (Lambda uses 20). @default 1 */
  readonly waitTimeSeconds?: number;
  /** Pause after an empty receive before the next one (matters with waitTimeSeconds 0). @default 20 */
  readonly idlePauseMs?: number;
  /** Region written into every record. @default 'us-east-1' */
  readonly awsRegion?: string;
}

/** One finished invocation. */
export interface SqsInvocation {
  readonly envId: string;
  readonly messageIds: readonly string[];
  readonly startedAt: number;
  readonly durationMs: number;
  readonly ending: 'response' | 'threw' | 'invalid-response' | KillReason;
  /** Records left on the queue: listed in batchItemFailures, or all of them unless the answer was a valid response. */
  readonly failedRecords: number;
  /** Records removed from the queue by DeleteMessageBatch. */
  readonly deleted: number;
}

/** Running totals of what the poller did. */
export interface SqsEventSourceStats {
  readonly received: number;
  /** Records received with ApproximateReceiveCount > 1. */
  readonly redeliveries: number;
  readonly deleted: number;
  /** DeleteMessageBatch entries SQS refused (a receipt handle that expired meanwhile). */
  readonly deleteFailures: number;
  readonly coldStarts: number;
  /** Most invocations seen running at once. */
  readonly peakConcurrency: number;
}

/**
 * A local stand-in for Lambda's SQS event source mapping with ReportBatchItemFailures, over the
 * real SQS client: `maximumConcurrency` pollers each ReceiveMessage up to `batchSize` records
 * (with every system and message attribute), invoke the handler with an SQSEvent built as Lambda
 * builds it, then DeleteMessageBatch every record not listed in `batchItemFailures`.
 *
 * As on Lambda: a thrown error, a timeout or a response that names a record not in the batch (or
 * an empty identifier) deletes nothing, and the records come back after the visibility timeout;
 * the queue's RedrivePolicy, not the poller, moves a record to the DLQ after maxReceiveCount.
 * A killed execution environment is replaced by a fresh one (a cold start).
 */
export class SqsEventSource {
  readonly invocations: SqsInvocation[] = [];
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly counters = { received: 0, redeliveries: 0, deleted: 0, deleteFailures: 0, coldStarts: 0, peakConcurrency: 0 };
  private running = 0;
  private stopping = false;
  private readonly abort = new AbortController();

  constructor(private readonly options: SqsEventSourceOptions) {
    const problems: string[] = [];
    this.batchSize = options.batchSize ?? 10;
    this.concurrency = options.maximumConcurrency ?? 2;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > 10) problems.push(`batchSize must be 1 to 10 (got ${this.batchSize})`);
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) problems.push(`maximumConcurrency must be a positive integer (got ${this.concurrency})`);
    if (!(options.functionTimeoutMs > 0)) problems.push(`functionTimeoutMs must be positive (got ${options.functionTimeoutMs})`);
    const wait = options.waitTimeSeconds ?? 1;
    if (!Number.isInteger(wait) || wait < 0 || wait > 20) problems.push(`waitTimeSeconds must be 0 to 20 (got ${wait})`);
    if (problems.length > 0) throw new Error(`Invalid SQS event source: ${problems.join('; ')}`);
    // Every poller's long poll listens on the one stop signal: that many listeners is expected, not a leak.
    setMaxListeners(this.concurrency + 1, this.abort.signal);
  }

  get stats(): SqsEventSourceStats {
    return { ...this.counters };
  }

  /**
   * Polls until `done()` answers true after an empty receive (check the queue there: nothing
   * visible, in flight or delayed), or until `stop()`.
   */
  async run(done: () => boolean | Promise<boolean>): Promise<void> {
    await Promise.all(Array.from({ length: this.concurrency }, (_, i) => this.poller(i, done)));
  }

  /** Ends every poller after its current invocation; an open long poll is cancelled. */
  stop(): void {
    this.stopping = true;
    this.abort.abort();
  }

  private async poller(index: number, done: () => boolean | Promise<boolean>): Promise<void> {
    let generation = 0;
    let env = this.coldStart(index, generation);
    let handler = this.options.createHandler(env);
    while (!this.stopping) {
      const records = await this.receive();
      if (records === undefined) return;
      if (records.length === 0) {
        if (await done()) return;
        await new Promise((resolve) => setTimeout(resolve, this.options.idlePauseMs ?? 20));
        continue;
      }
      const killed = await this.invoke(env, handler, records);
      if (killed) {
        generation += 1;
        env = this.coldStart(index, generation);
        handler = this.options.createHandler(env);
      }
    }
  }

  private coldStart(index: number, generation: number): ExecutionEnvironment {
    this.counters.coldStarts += 1;
    return new ExecutionEnvironment(`sqs-poller-${index}.${generation}`);
  }

  /** Up to `batchSize` records, or undefined once stopped. */
  private async receive(): Promise<SQSRecord[] | undefined> {
    try {
      const answer = await this.options.client.send(
        new ReceiveMessageCommand({
          QueueUrl: this.options.queueUrl,
          MaxNumberOfMessages: this.batchSize,
          WaitTimeSeconds: this.options.waitTimeSeconds ?? 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.abort.signal },
      );
      const records = (answer.Messages ?? []).map((m) => toSqsRecord(m, this.options.queueArn, this.options.awsRegion ?? LOCAL_REGION));
      this.counters.received += records.length;
      this.counters.redeliveries += records.filter((r) => receiveCount(r) > 1).length;
      return records;
    } catch (error) {
      if (this.stopping) return undefined;
      throw error;
    }
  }

  /** Runs one invocation and applies its answer; true when the environment died. */
  private async invoke(env: ExecutionEnvironment, handler: BatchHandler, records: SQSRecord[]): Promise<boolean> {
    const startedAt = Date.now();
    this.running += 1;
    this.counters.peakConcurrency = Math.max(this.counters.peakConcurrency, this.running);
    const timer = setTimeout(() => env.kill('function-timeout'), this.options.functionTimeoutMs);
    type Ending = { kind: 'response'; response: unknown } | { kind: 'threw' } | { kind: 'killed'; reason: KillReason };
    const event: SQSEvent = { Records: records };
    const ending: Ending = await Promise.race([
      Promise.resolve()
        .then(() => handler(event, lambdaContext(startedAt + this.options.functionTimeoutMs)))
        .then(
          (response): Ending => ({ kind: 'response', response }),
          (): Ending => ({ kind: 'threw' }),
        ),
      env.killed.then((reason): Ending => ({ kind: 'killed', reason })),
    ]);
    clearTimeout(timer);
    this.running -= 1;

    let outcome: SqsInvocation['ending'] = ending.kind === 'killed' ? ending.reason : ending.kind;
    let toDelete: SQSRecord[] = [];
    // An answer that arrives as the environment dies counts as a kill: nothing is acknowledged.
    if (ending.kind === 'response' && !env.isDead) {
      const failed = failedIds(ending.response, records.map((r) => r.messageId));
      if (failed === 'invalid') outcome = 'invalid-response';
      else toDelete = records.filter((r) => !failed.has(r.messageId));
    } else if (env.isDead && ending.kind !== 'killed') {
      outcome = 'function-timeout';
    }
    const deleted = await this.deleteAll(toDelete);
    this.invocations.push({
      envId: env.id,
      messageIds: records.map((r) => r.messageId),
      startedAt,
      durationMs: Date.now() - startedAt,
      ending: outcome,
      failedRecords: records.length - toDelete.length,
      deleted,
    });
    return env.isDead;
  }

  private async deleteAll(records: readonly SQSRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const answer = await this.options.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: this.options.queueUrl,
        Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }),
    );
    const deleted = answer.Successful?.length ?? 0;
    this.counters.deleted += deleted;
    this.counters.deleteFailures += answer.Failed?.length ?? 0;
    return deleted;
  }
}
