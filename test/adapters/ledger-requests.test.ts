import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DynamoDbLedger, itemToRow } from '../../functions/adapters/dynamodb-ledger';
import { idempotencyKey } from '../../functions/core/idempotency-key';
import { LEDGER_TABLE, ledgerItemKey } from '../../functions/core/ledger-table';

// Mocks every DynamoDBDocumentClient in this worker: restored after the file (mutation runs share workers).
const documents = mockClient(DynamoDBDocumentClient);
afterEach(() => documents.reset());
afterAll(() => documents.restore());

/** Loopback endpoint with nothing listening: nothing leaves the machine even if the mock were bypassed. */
const ledger = () =>
  new DynamoDbLedger(
    new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    'ledger',
  );

const KEY = idempotencyKey({ eventId: 'evt-requests', recipientId: 'r', channel: 'email', templateId: 't' });
const item = (key: string, extra: Record<string, unknown> = {}) => ({ ...ledgerItemKey(key), state: 'SENT', claimVersion: 1, eventId: 'evt-requests', ...extra });

describe('ledger items', () => {
  it('map back to rows keyed by the whole idempotency key, without the partition attribute', () => {
    expect(itemToRow(item(KEY, { ownerToken: 'o' }))).toEqual({ key: KEY, state: 'SENT', claimVersion: 1, eventId: 'evt-requests', ownerToken: 'o' });
  });

  it.each([
    ['no sort key', { pk: 'p', state: 'SENT', claimVersion: 1 }, 'sk=undefined'],
    ['no state', { pk: 'p', sk: 'k-1', claimVersion: 1 }, 'sk=k-1'],
    ['no claim version', { pk: 'p', sk: 'k-2', state: 'SENT' }, 'sk=k-2'],
  ])('an item with %s is not a send-ledger row, and the error names its sort key', (_what, foreign, named) => {
    expect(() => itemToRow(foreign)).toThrow(`Ledger item is not a send-ledger row (${named})`);
  });
});

describe('paged reads', () => {
  it('stale pending claims come oldest first, from where the last page ended', async () => {
    documents.on(QueryCommand).resolves({ Items: [{ sk: KEY, claimedAt: 5, pendingShard: '3', pk: 'p' }], LastEvaluatedKey: { pendingShard: '3', claimedAt: 5, pk: 'p', sk: KEY } });
    const page = await ledger().listStalePending('3', 1_000, 25, { pendingShard: '3', claimedAt: 1, pk: 'p', sk: 'k-0' });
    expect(page).toEqual({ rows: [{ key: KEY, claimedAt: 5 }], cursor: { pendingShard: '3', claimedAt: 5, pk: 'p', sk: KEY } });
    expect(documents.commandCalls(QueryCommand)[0]!.args[0].input).toEqual({
      TableName: 'ledger',
      IndexName: LEDGER_TABLE.pendingIndex.name,
      KeyConditionExpression: '#shard = :shard AND #claimedAt < :before',
      ExpressionAttributeNames: { '#shard': 'pendingShard', '#claimedAt': 'claimedAt' },
      ExpressionAttributeValues: { ':shard': '3', ':before': 1_000 },
      ScanIndexForward: true,
      Limit: 25,
      ExclusiveStartKey: { pendingShard: '3', claimedAt: 1, pk: 'p', sk: 'k-0' },
    });
  });

  it('the first page of stale claims starts at the beginning', async () => {
    documents.on(QueryCommand).resolves({});
    expect(await ledger().listStalePending('0', 1_000, 25)).toEqual({ rows: [], cursor: undefined });
    expect(documents.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey).toBeUndefined();
  });

  it("an event's rows are read page by page until the last", async () => {
    const second = idempotencyKey({ eventId: 'evt-requests', recipientId: 'r2', channel: 'email', templateId: 't' });
    documents
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(KEY)], LastEvaluatedKey: ledgerItemKey(KEY) })
      .resolvesOnce({ Items: [item(second)] });
    expect((await ledger().rowsForEvent('evt-requests')).map((row) => row.key)).toEqual([KEY, second]);
    const starts = documents.commandCalls(QueryCommand).map((call) => call.args[0].input.ExclusiveStartKey);
    expect(starts).toEqual([undefined, ledgerItemKey(KEY)]);
  });

  it('an SMS id finds its key, or nothing', async () => {
    documents.on(QueryCommand).resolvesOnce({ Items: [{ sk: KEY, pk: 'p', smsMessageId: 'sns-1' }] }).resolvesOnce({ Items: [] });
    expect(await ledger().keyForSmsMessageId('sns-1')).toBe(KEY);
    expect(await ledger().keyForSmsMessageId('sns-2')).toBeUndefined();
  });
});
