import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { LocalDynamoStream } from './local-dynamo-stream';
import { matchesAnyFilter } from './stream-filter-match';

/** What the mapping parks when it gives up on a batch: its place in the stream, as Lambda's `DDBStreamBatchInfo`. */
export interface ParkedBatch {
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize: number;
  readonly reason: 'RetryAttemptsExhausted' | 'RecordAgeExceeded';
}

export interface DynamoStreamEventSourceOptions {
  readonly stream: LocalDynamoStream;
  readonly handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /** The mapping's filter patterns. @default every record */
  readonly filters?: readonly Readonly<Record<string, unknown>>[];
  /** @default 100 */
  readonly batchSize?: number;
  /** @default 20 */
  readonly retryAttempts?: number;
  /** A batch whose oldest record is older is parked. @default 6 hours */
  readonly maxRecordAgeMs?: number;
  /** Split a failed batch in two. @default true */
  readonly bisectBatchOnError?: boolean;
  /** The on-failure destination. @default parked batches are only kept in `parked()` */
  readonly onFailure?: (batch: ParkedBatch) => void;
  /** Called when a killed invocation's environment is gone (its late calls have all failed). @default nothing */
  readonly afterKill?: () => void;
  /** @default Date.now */
  readonly clock?: () => number;
}

export interface DynamoStreamEventSource {
  /** Reads and hands on records until the stream has none left past the checkpoint; resolves with the invocations made. */
  drain(): Promise<number>;
  /** Ends the invocation running now, as a crash or a timeout would: its batch counts as failed. */
  kill(): void;
  parked(): readonly ParkedBatch[];
  /** Every event handed to the handler, in order (one per invocation). */
  invocations(): readonly DynamoDBStreamEvent[];
}

/**
 * A local Lambda event source mapping on a DynamoDB stream (one shard), as AWS documents its behaviour: the
 * filter's records in batches, the checkpoint moved only past what the handler acknowledged (a partial batch
 * response names the first record to retry: everything from it comes again), a failed or killed invocation's
 * records delivered again (the batch split in two with bisection), bounded by retry attempts and record age, after
 * which the batch's place goes to the on-failure destination and the mapping moves on. At least once, per-item
 * order. Hand-written: the product's Lambda runs under it locally exactly as under the real mapping.
 */
export function createDynamoStreamEventSource(options: DynamoStreamEventSourceOptions): DynamoStreamEventSource {
  const batchSize = options.batchSize ?? 100;
  const retryAttempts = options.retryAttempts ?? 20;
  const maxRecordAgeMs = options.maxRecordAgeMs ?? 6 * 60 * 60 * 1000;
  const bisect = options.bisectBatchOnError ?? true;
  const clock = options.clock ?? Date.now;
  const parked: ParkedBatch[] = [];
  const invocations: DynamoDBStreamEvent[] = [];
  let checkpoint: string | undefined;
  let attempts = 0;
  let window = batchSize;
  let killCurrent: (() => void) | undefined;

  async function invoke(records: readonly DynamoDBRecord[]): Promise<{ readonly ok: true; readonly retryFrom?: string } | { readonly ok: false }> {
    const event = { Records: [...records] };
    invocations.push(event);
    let killed = false;
    const kill = new Promise<'killed'>((resolve) => {
      killCurrent = () => {
        killed = true;
        resolve('killed');
      };
    });
    const running = options.handler(event);
    try {
      const answer = await Promise.race([running, kill]);
      if (answer === 'killed') return { ok: false };
      const first = answer?.batchItemFailures?.[0]?.itemIdentifier;
      if (answer?.batchItemFailures && answer.batchItemFailures.length > 0 && !first) return { ok: false };
      return first ? { ok: true, retryFrom: first } : { ok: true };
    } catch {
      return { ok: false };
    } finally {
      killCurrent = undefined;
      if (killed) {
        // The killed environment is gone: wait until its late calls have failed, then let the next one call out.
        await running.catch(() => undefined);
        options.afterKill?.();
      }
    }
  }

  function park(records: readonly DynamoDBRecord[], reason: ParkedBatch['reason']): void {
    const batch = {
      startSequenceNumber: records[0]!.dynamodb!.SequenceNumber!,
      endSequenceNumber: records.at(-1)!.dynamodb!.SequenceNumber!,
      batchSize: records.length,
      reason,
    };
    parked.push(batch);
    options.onFailure?.(batch);
    checkpoint = batch.endSequenceNumber;
    attempts = 0;
    window = batchSize;
  }

  return {
    async drain() {
      let count = 0;
      for (;;) {
        const raw = options.stream.read(checkpoint, window);
        if (raw.length === 0) return count;
        const records = raw.filter((record) => matchesAnyFilter(options.filters ?? [], record));
        if (records.length === 0) {
          checkpoint = raw.at(-1)!.dynamodb!.SequenceNumber;
          continue;
        }
        const oldestAgeMs = clock() - 1000 * Number(records[0]!.dynamodb!.ApproximateCreationDateTime ?? 0);
        if (oldestAgeMs > maxRecordAgeMs) {
          park(records, 'RecordAgeExceeded');
          continue;
        }
        count += 1;
        const result = await invoke(records);
        if (result.ok && result.retryFrom === undefined) {
          checkpoint = raw.at(-1)!.dynamodb!.SequenceNumber;
          attempts = 0;
          window = batchSize;
          continue;
        }
        attempts += 1;
        if (result.ok) {
          // Records before the one named are done; it and every later record come again.
          const index = raw.findIndex((record) => record.dynamodb?.SequenceNumber === result.retryFrom);
          if (index < 0) {
            if (attempts > retryAttempts) park(records, 'RetryAttemptsExhausted');
            continue;
          }
          if (index > 0) checkpoint = raw[index - 1]!.dynamodb!.SequenceNumber;
        } else if (bisect && raw.length > 1) {
          window = Math.ceil(raw.length / 2);
        }
        if (attempts > retryAttempts) park(records, 'RetryAttemptsExhausted');
      }
    },
    kill() {
      killCurrent?.();
    },
    parked: () => parked,
    invocations: () => invocations,
  };
}
