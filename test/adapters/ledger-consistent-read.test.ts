import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { eventPartOf } from '../../functions/core/event/idempotency-key';

// Mocks every DynamoDBDocumentClient in this worker: restored after the file, so test files that
// share the worker (mutation runs use isolate: false) talk to their real dynalite.
const documents = mockClient(DynamoDBDocumentClient);
afterEach(() => documents.reset());
afterAll(() => documents.restore());

// dynalite is a single node and always consistent, so only the request itself can show this.
describe('ledger reads', () => {
  it('read a row strongly consistently: the claim and the reclaimer decide on what they read', async () => {
    documents.on(GetCommand).resolves({});
    // Loopback endpoint with nothing listening: nothing leaves the machine even if the mock were bypassed.
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const ledger = new DynamoDbLedger(client, 'ledger');
    expect(await ledger.get('k'.repeat(64))).toBeUndefined();
    expect(documents.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: 'ledger',
      Key: { pk: 'k'.repeat(16), sk: 'k'.repeat(64) },
      ConsistentRead: true,
    });
  });

  it("an event's rows are one consistent Query of its partition, filtered on the event id (another event may share the partition)", async () => {
    documents.on(QueryCommand).resolves({ Items: [] });
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const ledger = new DynamoDbLedger(client, 'ledger');
    expect(await ledger.rowsForEvent('evt-1')).toEqual([]);
    const input = documents.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: 'ledger',
      KeyConditionExpression: '#pk = :partition',
      FilterExpression: '#eventId = :eventId',
      ExpressionAttributeValues: { ':partition': eventPartOf('evt-1'), ':eventId': 'evt-1' },
      ConsistentRead: true,
    });
    expect(input.IndexName).toBeUndefined();
  });
});
