import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ExecutionEnvironment, type KillReason } from './execution-environment';
import type { DeleteResult, LocalQueue } from './local-queue';
import { failedIds } from './partial-batch-response';

/** A handler as the event source calls it (the real sender's `SenderHandler` fits). */
export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** How the simulated Lambda event source polls and invokes. */
export interface EventSourceSettings {
  /** Concurrent invocations (the event source mapping's maximum concurrency). */
  readonly concurrency: number;
  /** Records per invocation at most. @default 10 */
  readonly batchSize?: number;
  /** Lambda kills an invocation that runs longer; it counts as a crash. */
  readonly functionTimeoutMs: number;
  /** Longest idle wait between polls of an empty queue. @default 20 */
  readonly idlePollMs?: number;
}

/** One finished invocation. */
export interface InvocationSummary {
  readonly envId: string;
  readonly records: number;
  readonly durationMs: number;
  /** `invalid-response`: an answer Lambda reads as the failure of the whole batch (local/partial-batch-response.ts). */
  readonly ending: 'response' | 'threw' | 'invalid-response' | KillReason;
  readonly failedRecords: number;
}

/** Called for every message deleted after a successful invocation. */
export type AckListener<M> = (ack: Extract<DeleteResult<M>, { deleted: true }>, ackedAt: number) => void;

/**
 * Polls a {@link LocalQueue} with `concurrency` workers, each a simulated execution environment
 * running the handler it was built with, and applies the answers as the SQS event source does
 * with ReportBatchItemFailures: delete every record not listed as failed (a null answer lists none);
 * on a thrown error, a crash, a timeout, or an answer naming an empty identifier or a record not in
 * the batch delete nothing (the records come back after the visibility timeout). The answer is read
 * as the SQS-backed source reads it (local/partial-batch-response.ts).
 * A killed environment is replaced by a fresh one (a cold start).
 */
export class LambdaEventSource<M> {
  readonly invocations: InvocationSummary[] = [];
  coldStarts = 0;
  private running = 0;
  private busySince = 0;
  /** Wall time during which at least one invocation was running. */
  busyMs = 0;

  constructor(
    private readonly queue: LocalQueue<M>,
    private readonly createHandler: (env: ExecutionEnvironment) => BatchHandler,
    private readonly settings: EventSourceSettings,
    private readonly onAck: AckListener<M> = () => undefined,
  ) {}

  /** Runs until `producerDone()` is true and the queue holds no message (visible or in flight). */
  async run(producerDone: () => boolean): Promise<void> {
    const workers = Array.from({ length: this.settings.concurrency }, (_, i) => this.worker(i, producerDone));
    await Promise.all(workers);
  }

  private async worker(index: number, producerDone: () => boolean): Promise<void> {
    let generation = 0;
    let env = new ExecutionEnvironment(`w${index}.${generation}`);
    let handler = this.createHandler(env);
    this.coldStarts += 1;
    const batchSize = this.settings.batchSize ?? 10;
    const idle = this.settings.idlePollMs ?? 20;
    for (;;) {
      const records = this.queue.receive(batchSize);
      if (records.length === 0) {
        if (producerDone() && this.queue.size === 0) return;
        const next = this.queue.nextVisibleAt();
        const wait = next === undefined ? idle : Math.min(idle, Math.max(1, next - Date.now()));
        await this.queue.waitForChange(wait);
        continue;
      }
      const ending = await this.invoke(env, handler, { Records: records });
      if (ending.kind === 'killed') {
        generation += 1;
        env = new ExecutionEnvironment(`w${index}.${generation}`);
        handler = this.createHandler(env);
        this.coldStarts += 1;
      }
    }
  }

  private async invoke(
    env: ExecutionEnvironment,
    handler: BatchHandler,
    event: SQSEvent,
  ): Promise<{ kind: 'response' | 'threw' | 'killed' }> {
    const started = Date.now();
    const deadline = started + this.settings.functionTimeoutMs;
    this.enterBusy(started);
    const timer = setTimeout(() => env.kill('function-timeout'), this.settings.functionTimeoutMs);
    type Ending = { kind: 'response'; response: unknown } | { kind: 'threw' } | { kind: 'killed'; reason: KillReason };
    const ending: Ending = await Promise.race([
      Promise.resolve()
        .then(() => handler(event, lambdaContext(deadline)))
        .then(
          (response): Ending => ({ kind: 'response', response }),
          (): Ending => ({ kind: 'threw' }),
        ),
      env.killed.then((reason): Ending => ({ kind: 'killed', reason })),
    ]);
    clearTimeout(timer);
    const ended = Date.now();
    this.leaveBusy(ended);
    let failedRecords = event.Records.length;
    let invalid = false;
    if (ending.kind === 'response' && !env.isDead) {
      const failed = failedIds(ending.response, event.Records.map((r) => r.messageId));
      invalid = failed === 'invalid';
      failedRecords = failed === 'invalid' ? event.Records.length : failed.size;
      for (const record of event.Records) {
        if (failed === 'invalid' || failed.has(record.messageId)) continue;
        const result = this.queue.delete(record.receiptHandle);
        if (result.deleted) this.onAck(result, ended);
      }
    }
    this.invocations.push({
      envId: env.id,
      records: event.Records.length,
      durationMs: ended - started,
      ending: ending.kind === 'killed' ? ending.reason : invalid ? 'invalid-response' : ending.kind,
      failedRecords,
    });
    // An answer that arrives as the environment dies counts as a kill: nothing was acknowledged.
    return { kind: env.isDead ? 'killed' : ending.kind };
  }

  private enterBusy(now: number): void {
    if (this.running === 0) this.busySince = now;
    this.running += 1;
  }

  private leaveBusy(now: number): void {
    this.running -= 1;
    if (this.running === 0) this.busyMs += now - this.busySince;
  }
}

/** A Lambda context whose remaining time counts down to the invocation's deadline. */
export function lambdaContext(deadline: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'local-sender',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:local-sender',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: '/local/sender',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
