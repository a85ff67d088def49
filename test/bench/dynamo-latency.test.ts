import { performance } from 'node:perf_hooks';
import { CreateTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDynamoLatency } from '../../bench/latency/dynamo-latency';
import type { LatencyDistribution } from '../../bench/latency/latency-model';
import { startLocalDynamo, type LocalDynamo } from '../../local/local-dynamo';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await dynamo.client().send(
    new CreateTableCommand({
      TableName: 'latency',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
});
afterAll(async () => dynamo.stop());

const FIXED_60: LatencyDistribution = { label: 'test', medianMs: 60, p99Ms: 60, source: 'test' };

describe('the DynamoDB latency middleware', () => {
  it('delays every request of the client, the document client built from it included, and no other client', async () => {
    const client = dynamo.client();
    const tally = addDynamoLatency(client, FIXED_60, 3);
    const doc = DynamoDBDocumentClient.from(client);
    const other = dynamo.client();

    const time = async (f: () => Promise<unknown>) => {
      const started = performance.now();
      await f();
      return performance.now() - started;
    };
    expect(await time(() => client.send(new GetItemCommand({ TableName: 'latency', Key: { pk: { S: 'a' } } })))).toBeGreaterThanOrEqual(59);
    expect(await time(() => doc.send(new GetCommand({ TableName: 'latency', Key: { pk: 'a' } })))).toBeGreaterThanOrEqual(59);
    expect(tally().attempts).toBe(2);
    await other.send(new GetItemCommand({ TableName: 'latency', Key: { pk: { S: 'a' } } }));
    expect(tally().attempts).toBe(2);
    expect(tally().totalMs).toBeCloseTo(120, 6);
  });
});
