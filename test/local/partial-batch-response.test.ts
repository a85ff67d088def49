import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { SqsEventSource } from '../../local/aws/sqs-event-source';
import { LambdaEventSource } from '../../local/lambda-event-source';
import { LocalQueue } from '../../local/local-queue';

// Lambda's reading of an SQS partial batch response ("Handling errors for an SQS event source in Lambda",
// https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html, "Success and failure conditions"):
// complete success for an empty or null batchItemFailures list and for an empty or null response; complete failure
// (nothing deleted) for an empty or null itemIdentifier, a wrong key name, or a message id not in the batch.
// Both local event sources must read it so: the in-memory one `simulate` runs, and the one over the real SQS client.

/** What a handler answers, given the ids of its batch (three records). */
type Answer = (ids: readonly string[]) => unknown;

interface PartialBatchCase {
  readonly name: string;
  readonly answer: Answer;
  /** Records deleted out of the three. */
  readonly deleted: number;
  readonly ending: 'response' | 'invalid-response';
}

const CASES: readonly PartialBatchCase[] = [
  { name: 'an empty batchItemFailures list deletes every record', answer: () => ({ batchItemFailures: [] }), deleted: 3, ending: 'response' },
  { name: 'a null response is complete success', answer: () => null, deleted: 3, ending: 'response' },
  { name: 'an undefined response is complete success', answer: () => undefined, deleted: 3, ending: 'response' },
  { name: 'an empty response object is complete success', answer: () => ({}), deleted: 3, ending: 'response' },
  { name: 'a null batchItemFailures list is complete success', answer: () => ({ batchItemFailures: null }), deleted: 3, ending: 'response' },
  {
    name: 'a listed record stays and the others are deleted',
    answer: (ids) => ({ batchItemFailures: [{ itemIdentifier: ids[1] }] }),
    deleted: 2,
    ending: 'response',
  },
  {
    name: 'an empty itemIdentifier fails the whole batch (nothing deleted)',
    answer: () => ({ batchItemFailures: [{ itemIdentifier: '' }] }),
    deleted: 0,
    ending: 'invalid-response',
  },
  {
    name: 'a null itemIdentifier fails the whole batch',
    answer: () => ({ batchItemFailures: [{ itemIdentifier: null }] }),
    deleted: 0,
    ending: 'invalid-response',
  },
  {
    name: 'an itemIdentifier under a wrong key name fails the whole batch',
    answer: (ids) => ({ batchItemFailures: [{ itemIdentifer: ids[0] }] }),
    deleted: 0,
    ending: 'invalid-response',
  },
  {
    name: 'an itemIdentifier of no record of the batch fails the whole batch, even beside a valid one',
    answer: (ids) => ({ batchItemFailures: [{ itemIdentifier: ids[0] }, { itemIdentifier: 'not-in-this-batch' }] }),
    deleted: 0,
    ending: 'invalid-response',
  },
];

/** A handler that answers `answer` for its first batch, and success afterwards. */
function answering(answer: Answer): { handler: (event: SQSEvent) => Promise<SQSBatchResponse>; batchIds: () => readonly string[] } {
  let first: string[] | undefined;
  return {
    batchIds: () => first ?? [],
    handler: async (event) => {
      if (first) return { batchItemFailures: [] };
      first = event.Records.map((r) => r.messageId);
      return answer(first) as SQSBatchResponse;
    },
  };
}

interface FirstInvocation {
  readonly deleted: number;
  readonly ending: string;
}

async function inMemory(answer: Answer): Promise<FirstInvocation> {
  const queue = new LocalQueue<undefined>({ visibilityTimeoutMs: 40, maxReceiveCount: 1 });
  for (const body of ['a', 'b', 'c']) queue.send(body, undefined);
  const { handler } = answering(answer);
  let deleted = 0;
  const source = new LambdaEventSource(queue, () => handler, { concurrency: 1, batchSize: 10, functionTimeoutMs: 2_000, idlePollMs: 5 }, () => {
    deleted += 1;
  });
  // One receive: what the answer left on the queue is dead-lettered on the next (maxReceiveCount 1), which ends the run.
  await source.run(() => true);
  return { deleted, ending: source.invocations[0]?.ending ?? 'none' };
}

describe('both local SQS event sources read a partial batch response as Lambda does', () => {
  describe('LambdaEventSource (in memory, the one simulate runs)', () => {
    it.each(CASES)('$name', async ({ answer, deleted, ending }) => {
      expect(await inMemory(answer)).toEqual({ deleted, ending });
    });
  });

  describe('SqsEventSource (over the real SQS client)', () => {
    let sqs: LocalSqs;
    beforeAll(async () => {
      sqs = await startLocalSqs({ queueName: 'partial-batch', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 });
    });
    afterAll(async () => sqs?.stop());

    it.each(CASES)('$name', async ({ answer, deleted, ending }) => {
      const pair = await sqs.createQueuePair(`partial-${CASES.findIndex((c) => c.answer === answer)}`);
      const client = sqs.client();
      for (const body of ['a', 'b', 'c']) await client.send(new SendMessageCommand({ QueueUrl: pair.queueUrl, MessageBody: body }));
      const { handler } = answering(answer);
      const source = new SqsEventSource({
        client,
        queueUrl: pair.queueUrl,
        queueArn: pair.queueArn,
        createHandler: () => handler,
        functionTimeoutMs: 2_000,
        maximumConcurrency: 1,
        waitTimeSeconds: 0,
      });
      await source.run(() => source.invocations.length > 0 || Date.now() < 0);
      const first = source.invocations[0];
      expect({ deleted: first?.deleted, ending: first?.ending, records: first?.messageIds.length }).toEqual({ deleted, ending, records: 3 });
    });
  });
});
