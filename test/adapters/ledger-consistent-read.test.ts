import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';

const documents = mockClient(DynamoDBDocumentClient);
afterEach(() => documents.reset());

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
      Key: { pk: 'k'.repeat(64) },
      ConsistentRead: true,
    });
  });
});
