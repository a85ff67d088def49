import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DynamoDbLedger, itemToRow } from '../../functions/adapters/dynamodb-ledger';
import { LedgerExpression } from '../../functions/adapters/ledger-expression';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { LEDGER_TABLE, ledgerItemKey } from '../../functions/core/ledger/ledger-table';

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
/** The fields every row has (items are validated when read). */
const ROW_FIELDS = {
  state: 'SENT',
  claimVersion: 1,
  ownerToken: 'o',
  claimedAt: 1,
  leaseExpiresAt: 2,
  attempts: 1,
  eventId: 'evt-requests',
  recipientId: 'r',
  channel: 'email',
  templateId: 't',
  messageClass: 'transactional',
  occurredAt: '2026-01-01T00:00:00.000Z',
  createdAt: 1,
  updatedAt: 3,
  expiresAt: 4,
} as const;
const item = (key: string, extra: Record<string, unknown> = {}) => ({ ...ledgerItemKey(key), ...ROW_FIELDS, ...extra });

describe('ledger items', () => {
  it('map back to rows keyed by the whole idempotency key, without the partition attribute', () => {
    expect(itemToRow(item(KEY, { ownerToken: 'o' }))).toEqual({ key: KEY, ...ROW_FIELDS, ownerToken: 'o' });
  });

  it.each([
    ['no sort key', { pk: 'p', state: 'SENT', claimVersion: 1 }, 'sk=undefined'],
    ['no state', { pk: 'p', sk: 'k-1', claimVersion: 1 }, 'sk=k-1'],
    ['no claim version', { pk: 'p', sk: 'k-2', state: 'SENT' }, 'sk=k-2'],
  ])('an item with %s is not a send-ledger row, and the error names its sort key', (_what, foreign, named) => {
    expect(() => itemToRow(foreign)).toThrow(`Ledger item is not a send-ledger row (${named})`);
  });
});

describe('ledger items are validated when read', () => {
  it('refuses a field of the wrong type or an unknown state, naming the field and never its value', () => {
    expect(() => itemToRow(item(KEY, { claimVersion: '1' }))).toThrow(/not a send-ledger row \(sk=.*\): claimVersion: /);
    expect(() => itemToRow(item(KEY, { state: 'DONE' }))).toThrow(/state: /);
    expect(() => itemToRow(item(KEY, { channel: 'fax' }))).toThrow(/channel: /);
    expect(() => itemToRow(item(KEY, { request: { channel: 'sms', to: '+15550100' } }))).not.toThrow(/\+15550100/);
    expect(() => itemToRow(item(KEY, { request: { channel: 'sms', to: '+15550100' } }))).toThrow(/request\.text: /);
  });

  it('keeps a packed request as its bytes, and refuses a request that is neither bytes nor a message', () => {
    const packed = new Uint8Array([1, 2, 3]);
    expect(itemToRow(item(KEY, { state: 'PENDING', request: packed })).request).toBe(packed);
    expect(() => itemToRow(item(KEY, { request: 'AQID' }))).toThrow(/request: /);
  });

  it('keeps a stored request and attributes the row does not declare, as they were', () => {
    const request = { channel: 'sms', to: '+15550100', text: 'code 1' };
    expect(itemToRow(item(KEY, { state: 'PENDING', request, somethingElse: 7 }))).toMatchObject({ state: 'PENDING', request, somethingElse: 7 });
  });
});

describe('write requests name every attribute #<attribute>', () => {
  const row = { key: KEY, ...ROW_FIELDS, state: 'PENDING', ownerToken: 'owner-1' } as const;

  it('a claim: absent, expired, or exactly this request already written', async () => {
    documents.on(PutCommand).resolves({});
    expect(await ledger().claim(row, 5_500)).toEqual({ claimed: true });
    const input = documents.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe(
      'attribute_not_exists(#pk) OR #expiresAt <= :nowSeconds OR (#ownerToken = :owner AND #state = :pending AND #claimVersion = :version AND #leaseExpiresAt = :lease)',
    );
    expect(input.ExpressionAttributeNames).toEqual({ '#pk': 'pk', '#expiresAt': 'expiresAt', '#ownerToken': 'ownerToken', '#state': 'state', '#claimVersion': 'claimVersion', '#leaseExpiresAt': 'leaseExpiresAt' });
    expect(input.ExpressionAttributeValues).toEqual({ ':nowSeconds': 5, ':owner': 'owner-1', ':pending': 'PENDING', ':version': 1, ':lease': 2 });
  });

  it('a release: fenced on the held claim of a PENDING row', async () => {
    documents.on(UpdateCommand).resolves({});
    expect(await ledger().release({ key: KEY, ownerToken: 'owner-1', claimVersion: 2 }, { reason: 'transient', detail: 'Throttled', lastAmbiguousAt: undefined }, 9)).toBe(true);
    const input = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toBe('SET #leaseExpiresAt = :now, #updatedAt = :now, #lastRelease = :reason, #failureReason = :detail');
    expect(input.ConditionExpression).toBe('#ownerToken = :owner AND #claimVersion = :version AND #state = :pending');
    expect(input.ExpressionAttributeValues).toEqual({ ':now': 9, ':reason': 'transient', ':detail': 'Throttled', ':owner': 'owner-1', ':version': 2, ':pending': 'PENDING' });
  });

  it('one label names one value: binding it to another fails before any request', () => {
    const x = new LedgerExpression();
    expect(x.is('updatedAt', 'now', 1)).toBe('#updatedAt = :now');
    expect(x.is('resolvedAt', 'now', 1)).toBe('#resolvedAt = :now');
    expect(() => x.value('now', 2)).toThrow(':now is bound twice, to different values');
  });

  it('an expression with names only sends no ExpressionAttributeValues: DynamoDB refuses an empty map', () => {
    const x = new LedgerExpression();
    x.name('pendingShard');
    expect(x.attributes()).toEqual({ ExpressionAttributeNames: { '#pendingShard': 'pendingShard' } });
    x.value('now', 1);
    expect(x.attributes()).toEqual({ ExpressionAttributeNames: { '#pendingShard': 'pendingShard' }, ExpressionAttributeValues: { ':now': 1 } });
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
      KeyConditionExpression: '#pendingShard = :shard AND #claimedAt < :before',
      ExpressionAttributeNames: { '#pendingShard': 'pendingShard', '#claimedAt': 'claimedAt' },
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
