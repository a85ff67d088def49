import { ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchHandler } from '../../local/lambda-event-source';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { queueDepth, queueIsEmpty, readAllVisible } from '../../local/aws/queue-inspection';
import { SqsEventSource, type SqsEventSourceOptions } from '../../local/aws/sqs-event-source';

let sqs: LocalSqs;
let client: SQSClient;

beforeEach(async () => {
  sqs = await startLocalSqs({ queueName: 'events', visibilityTimeoutSeconds: 1, maxReceiveCount: 2 });
  client = sqs.client();
});
afterEach(async () => {
  await sqs.stop();
});

async function send(body: string, attributes: Record<string, string> = {}): Promise<string> {
  const answer = await client.send(
    new SendMessageCommand({
      QueueUrl: sqs.queueUrl,
      MessageBody: body,
      MessageAttributes: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }])),
    }),
  );
  return answer.MessageId ?? '';
}

function source(handler: BatchHandler, options: Partial<SqsEventSourceOptions> = {}): SqsEventSource {
  return new SqsEventSource({
    client,
    queueUrl: sqs.queueUrl,
    queueArn: sqs.queueArn,
    createHandler: () => handler,
    functionTimeoutMs: 2_000,
    maximumConcurrency: 1,
    waitTimeSeconds: 0,
    ...options,
  });
}

/** Runs until the queue is empty (nothing visible or in flight) or `budgetMs` passes. */
async function runUntilEmpty(poller: SqsEventSource, budgetMs = 10_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  await poller.run(async () => Date.now() > deadline || (await queueIsEmpty(client, sqs.queueUrl)));
}

/** Runs exactly one invocation's worth: stops the poller after its first invocation. */
async function runOnce(poller: SqsEventSource): Promise<void> {
  await poller.run(() => poller.invocations.length > 0 || Date.now() < 0);
}

const acknowledgeAll: BatchHandler = async () => ({ batchItemFailures: [] });

describe('SqsEventSource (Lambda SQS event source mapping over the real SQS client)', () => {
  it('hands the handler Lambda-shaped records with the real system and message attributes', async () => {
    const id = await send('{"hello":1}', { 'producer.trace': 't-1' });
    const events: SQSEvent[] = [];
    await runUntilEmpty(
      source(async (event) => {
        events.push(event);
        return { batchItemFailures: [] };
      }),
    );
    const record = events[0]?.Records[0];
    expect(record).toMatchObject({
      messageId: id,
      body: '{"hello":1}',
      eventSource: 'aws:sqs',
      eventSourceARN: sqs.queueArn,
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: { 'producer.trace': { dataType: 'String', stringValue: 't-1', stringListValues: [], binaryListValues: [] } },
    });
    expect(Number(record?.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(record?.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
  });

  it('deletes every record not listed in batchItemFailures and leaves the listed one on the queue', async () => {
    const ids = [await send('a'), await send('b'), await send('c')];
    const failing = ids[1] ?? '';
    const poller = source(async (event) => ({
      batchItemFailures: event.Records.filter((r) => r.messageId === failing).map((r) => ({ itemIdentifier: r.messageId })),
    }));
    await runOnce(poller);

    expect(poller.invocations[0]).toMatchObject({ ending: 'response', failedRecords: 1, deleted: 2 });
    expect(await queueDepth(client, sqs.queueUrl)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
  });

  it('deletes nothing when the handler throws, and the records come back after the visibility timeout with a higher receive count', async () => {
    await send('a');
    const counts: string[] = [];
    let calls = 0;
    const poller = source(async (event) => {
      calls += 1;
      counts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
      if (calls === 1) throw new Error('boom');
      return { batchItemFailures: [] };
    });
    await runUntilEmpty(poller);

    expect(poller.invocations.map((i) => i.ending)).toEqual(['threw', 'response']);
    expect(counts).toEqual(['1', '2']);
    expect(poller.stats).toMatchObject({ received: 2, redeliveries: 1, deleted: 1 });
  });

  it('treats a response naming a record outside the batch as a failure of the whole batch', async () => {
    await send('a');
    await send('b');
    const poller = source(async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }));
    await runOnce(poller);

    expect(poller.invocations[0]).toMatchObject({ ending: 'invalid-response', deleted: 0, failedRecords: 2 });
    expect((await queueDepth(client, sqs.queueUrl)).inFlight).toBe(2);
  });

  it('kills an invocation past the function timeout, deletes nothing and cold-starts a fresh environment', async () => {
    await send('a');
    const environments: string[] = [];
    const poller = new SqsEventSource({
      client,
      queueUrl: sqs.queueUrl,
      queueArn: sqs.queueArn,
      functionTimeoutMs: 200,
      maximumConcurrency: 1,
      waitTimeSeconds: 0,
      createHandler: (env) => {
        environments.push(env.id);
        return environments.length === 1 ? () => new Promise<SQSBatchResponse>(() => undefined) : acknowledgeAll;
      },
    });
    await runUntilEmpty(poller);

    expect(poller.invocations.map((i) => [i.ending, i.deleted])).toEqual([
      ['function-timeout', 0],
      ['response', 1],
    ]);
    expect(environments).toHaveLength(2);
    expect(poller.stats.coldStarts).toBe(2);
  });

  it('leaves the move to the DLQ to the queue: after maxReceiveCount receives the record is on the DLQ with its message attributes', async () => {
    const id = await send('poison', { 'producer.trace': 't-9' });
    const seen: string[] = [];
    const poller = source(async (event) => {
      seen.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await runUntilEmpty(poller);

    expect(seen).toEqual(['1', '2']);
    const dead = await readAllVisible(client, sqs.dlqUrl);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ MessageId: id, Body: 'poison', MessageAttributes: { 'producer.trace': { DataType: 'String', StringValue: 't-9' } } });
    expect(await queueIsEmpty(client, sqs.queueUrl)).toBe(true);
  });

  it('runs at most maximumConcurrency invocations at once, and uses all of them under load', async () => {
    for (let i = 0; i < 12; i += 1) await send(`m${i}`);
    let running = 0;
    let peak = 0;
    const poller = source(
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 150));
        running -= 1;
        return { batchItemFailures: [] };
      },
      { maximumConcurrency: 3, batchSize: 1 },
    );
    await runUntilEmpty(poller);

    expect(peak).toBe(3);
    expect(poller.stats).toMatchObject({ peakConcurrency: 3, deleted: 12 });
    expect(poller.invocations.every((i) => i.messageIds.length === 1)).toBe(true);
  });

  it('validates its settings up front and reports every problem', () => {
    expect(() => source(acknowledgeAll, { batchSize: 11, maximumConcurrency: 0, functionTimeoutMs: 0 })).toThrow(
      /batchSize must be 1 to 10 \(got 11\); maximumConcurrency must be a positive integer \(got 0\); functionTimeoutMs must be positive \(got 0\)/,
    );
  });

  it('serves queue URLs on the loopback endpoint, so a client reading only AWS_ENDPOINT_URL_SQS stays on it', async () => {
    expect(sqs.queueUrl).toBe(`${sqs.endpoint}/000000000000/events`);
    expect(sqs.dlqUrl).toBe(`${sqs.endpoint}/000000000000/events-dlq`);
    await send('x');
    const answer = await client.send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl }));
    expect(answer.Messages?.[0]?.Body).toBe('x');
  });
});
