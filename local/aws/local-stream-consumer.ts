import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createDynamoStreamEventSource, type DynamoStreamEventSource, type DynamoStreamEventSourceOptions } from './dynamo-stream-event-source';
import type { LocalDynamoStream } from './local-dynamo-stream';

/**
 * Lambda polls each shard of a DynamoDB stream about 4 times a second ("Polling and stream starting positions",
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html).
 */
export const STREAM_POLL_INTERVAL_MS = 250;

/** How one invocation of a stream consumer ended, as its event source mapping saw it. */
export interface StreamInvocationResult {
  /** 0-based, in the order the mapping made them. */
  readonly invocation: number;
  /** Every record handed in was acknowledged; or the sequence number the partial batch response named; or it failed. */
  readonly outcome: { readonly kind: 'acknowledged' } | { readonly kind: 'handed-back'; readonly fromSequence: string } | { readonly kind: 'failed' };
}

/** One consumer Lambda on the local stream, as its own event source mapping (its own checkpoint, its own filter). */
export interface AttachStreamConsumerOptions extends Omit<DynamoStreamEventSourceOptions, 'stream' | 'handler'> {
  /** The consumer Lambda's handler, as the deployed function's (e.g. functions/outcomes/handler.ts's). */
  readonly handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /** @default STREAM_POLL_INTERVAL_MS */
  readonly pollIntervalMs?: number;
  /** Called when an invocation ends, whichever way. @default nothing */
  readonly onInvocationEnd?: (result: StreamInvocationResult) => void;
}

/** A consumer attached to the local stream, polling it while the run goes on. */
export interface AttachedStreamConsumer {
  readonly mapping: DynamoStreamEventSource;
  /** Reads the stream now (waits for a read under way first) until nothing is left past the checkpoint. */
  drain(): Promise<void>;
  /** Stops polling, then drains what is left: every record written before the call has been handed on. */
  stop(): Promise<void>;
}

/**
 * Attaches a stream consumer Lambda to the local DynamoDB stream ({@link LocalDynamoStream}), as an event source
 * mapping does on AWS: polled while the run goes on, one batch at a time (one shard), at least once, with the
 * filter, retries, bisection and on-failure destination of {@link createDynamoStreamEventSource}. Every consumer
 * has its own checkpoint, so several may read one stream (the outcome publisher, and later channel fallback).
 */
export function attachStreamConsumer(stream: LocalDynamoStream, options: AttachStreamConsumerOptions): AttachedStreamConsumer {
  let invocation = 0;
  const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse | void> => {
    const index = invocation++;
    const end = (outcome: StreamInvocationResult['outcome']) => options.onInvocationEnd?.({ invocation: index, outcome });
    try {
      const answer = await options.handler(event);
      const first = answer?.batchItemFailures?.[0]?.itemIdentifier;
      end(answer?.batchItemFailures && answer.batchItemFailures.length > 0 ? (first ? { kind: 'handed-back', fromSequence: first } : { kind: 'failed' }) : { kind: 'acknowledged' });
      return answer;
    } catch (error) {
      end({ kind: 'failed' });
      throw error;
    }
  };
  const mapping = createDynamoStreamEventSource({ ...options, stream, handler });
  let reading: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const drain = () => {
    // One reader at a time, as one shard has: a drain asked for while one runs follows it.
    reading = reading.then(async () => {
      busy = true;
      try {
        await mapping.drain();
      } finally {
        busy = false;
      }
    });
    return reading;
  };
  const timer = setInterval(() => {
    // A poll while the reader is busy is no new work: it reads on until the stream is empty anyway.
    if (!stopped && !busy) void drain().catch(() => undefined);
  }, options.pollIntervalMs ?? STREAM_POLL_INTERVAL_MS);
  return {
    mapping,
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await drain();
    },
  };
}
