import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { STREAM_RETENTION_MS } from '../../local/aws/local-dynamo-stream';
import { createDynamoStreamEventSource } from '../../local/aws/dynamo-stream-event-source';
import { useTestLedger } from '../support/ledger-server';
import { sendAndDeliver, startOutcomeFeed } from './outcome-feed-rig';

const db = useTestLedger();

describe('the local DynamoDB stream', () => {
  it('records each write that changed an item, in the order of the item\'s writes, with both images, and none for a refused write', async () => {
    const feed = await startOutcomeFeed(db);
    try {
      const key = await sendAndDeliver(feed.ledger);
      // An older status fails its condition: no write, no record.
      expect(await feed.ledger.recordDeliveryStatus(key, { status: 'Delivery', at: 0, source: 'ses' }, Date.now())).toBe('superseded');
      const mine = feed.stream.all().map((s) => s.record).filter((r) => r.dynamodb?.Keys?.sk?.S === key);
      expect(mine.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
      expect(mine.map((r) => r.dynamodb?.NewImage?.state?.S)).toEqual(['PENDING', 'SENT', 'SENT']);
      expect(mine.map((r) => r.dynamodb?.OldImage?.state?.S)).toEqual([undefined, 'PENDING', 'SENT']);
      const sequences = mine.map((r) => BigInt(r.dynamodb!.SequenceNumber!));
      expect([...sequences].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequences);
    } finally {
      await feed.stop();
    }
  });

  it('answers a write as its caller asked (no values it did not ask for), though it borrows the write\'s return values for its images', async () => {
    const feed = await startOutcomeFeed(db);
    const client = new DynamoDBClient({ endpoint: feed.stream.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const Key = { pk: { S: 'limit#stream-test' }, sk: { S: 'counter' } };
      const put = await client.send(new PutItemCommand({ TableName: db.tableName, Item: { ...Key, n: { N: '1' } } }));
      expect(put.Attributes).toBeUndefined();
      const update = await client.send(new UpdateItemCommand({ TableName: db.tableName, Key, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
      expect(update.Attributes).toBeUndefined();
      const asked = await client.send(
        new UpdateItemCommand({ TableName: db.tableName, Key, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } }, ReturnValues: 'UPDATED_OLD' }),
      );
      expect(asked.Attributes).toEqual({ n: { N: '2' } });
      const mine = feed.stream.all().map((s) => s.record).filter((r) => r.dynamodb?.Keys?.pk?.S === 'limit#stream-test');
      expect(mine.map((r) => [r.eventName, r.dynamodb?.OldImage?.n?.N, r.dynamodb?.NewImage?.n?.N])).toEqual([
        ['INSERT', undefined, '1'],
        ['MODIFY', '1', '2'],
        ['MODIFY', '2', '3'],
      ]);
    } finally {
      client.destroy();
      await feed.stop();
    }
  });

  it('delivers a record again after the consumer failed on it, until it succeeds', async () => {
    const feed = await startOutcomeFeed(db);
    try {
      await sendAndDeliver(feed.ledger);
      const seen: string[] = [];
      let failures = 2;
      const mapping = createDynamoStreamEventSource({
        stream: feed.stream,
        handler: async (event) => {
          seen.push(...event.Records.map((r) => r.eventID!));
          if (failures-- > 0) throw new Error('consumer failed');
        },
      });
      await mapping.drain();
      const ids = feed.stream.all().map((s) => s.record.eventID!);
      expect(new Set(seen)).toEqual(new Set(ids));
      expect(seen.length).toBeGreaterThan(ids.length);
    } finally {
      await feed.stop();
    }
  });

  it('keeps a record 24 hours: an older one is never delivered', async () => {
    let now = Date.now();
    const feed = await startOutcomeFeed(db, {}, () => now);
    try {
      await sendAndDeliver(feed.ledger);
      now += STREAM_RETENTION_MS + 1;
      expect(feed.stream.read(undefined, 100)).toEqual([]);
      expect(await feed.mapping.drain()).toBe(0);
      expect(feed.bus.events()).toEqual([]);
    } finally {
      await feed.stop();
    }
  });

  it('parks a batch whose retries ran out and moves on', async () => {
    const feed = await startOutcomeFeed(db);
    try {
      await sendAndDeliver(feed.ledger);
      const mapping = createDynamoStreamEventSource({ stream: feed.stream, retryAttempts: 2, bisectBatchOnError: false, handler: () => Promise.reject(new Error('always')) });
      await mapping.drain();
      expect(mapping.parked()).toEqual([expect.objectContaining({ reason: 'RetryAttemptsExhausted' })]);
      expect(mapping.invocations()).toHaveLength(3);
    } finally {
      await feed.stop();
    }
  });
});
