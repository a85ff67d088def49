import type { DeadLetter, DeadLetterSink } from '../core/queue/dead-letter-sink';
import type { RecordDeferral } from '../core/queue/record-deferral';

/**
 * Memoises an asynchronous load; a failed load is tried again on the next call instead of failing
 * every later one.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/**
 * SQS for the two records that need it, loaded on first use: a record that backs off (a provider's
 * throttle) and one that is dead-lettered (bad input). A cold start whose batches only send never
 * evaluates the SQS client: in the one-file bundle, esbuild evaluates a module reached only through
 * `import()` when it is first imported (docs/benchmark.md has the cold-import figures).
 */
export function sqsOnDemand(): { deferral(queueUrl: string): RecordDeferral; deadLetters(queueUrl: string): DeadLetterSink } {
  const client = onFirstUse(async () => (await import('./sqs-client')).newSqsClient());
  return {
    deferral(queueUrl) {
      const adapter = onFirstUse(async () => new (await import('./sqs-record-deferral')).SqsRecordDeferral(await client(), queueUrl));
      return { defer: async (receiptHandle, seconds) => (await adapter()).defer(receiptHandle, seconds) };
    },
    deadLetters(queueUrl) {
      const adapter = onFirstUse(async () => new (await import('./sqs-dead-letters')).SqsDeadLetters(await client(), queueUrl));
      return { deadLetter: async (letter: DeadLetter) => (await adapter()).deadLetter(letter) };
    },
  };
}
