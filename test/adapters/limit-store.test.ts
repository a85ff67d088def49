import { createRequire } from 'node:module';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { countRequest, DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { countDigest, scopeCounts, type MessageLimit } from '../../functions/core/policy/message-limits';
import { useTestLedger } from '../support/ledger-server';

const db = useTestLedger();
const store = () => new DynamoDbLimitStore(db.client, db.tableName);

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const limit = (max: number, windowSeconds: number, scope: MessageLimit['scope'] = 'address'): MessageLimit => ({
  scope,
  max,
  windowSeconds,
  perChannel: false,
  perTemplate: false,
});
let subjects = 0;
/** A fresh address, so each test has counters of its own. */
function counterFor(limits: readonly MessageLimit[], at = T0, address = `+1415555${String(1000 + (subjects += 1))}`) {
  const [counter] = scopeCounts('otp', limits, { eventId: 'unused', recipientId: 'r', channel: 'sms', templateId: 't', address }, at);
  if (!counter) throw new Error('no counter');
  return counter;
}

describe('one conditional write per counter, on a real DynamoDB-compatible server', () => {
  it('counts up to max distinct events, then refuses the next', async () => {
    const counter = counterFor([limit(3, 600)]);
    const results = [];
    for (const event of ['e1', 'e2', 'e3', 'e4']) results.push(await store().count(counter, countDigest(event)));
    expect(results).toEqual(['counted', 'counted', 'counted', 'refused']);
  });

  it('finds an event it has counted counted again, even when the window is full (a retry, a takeover, a resend)', async () => {
    const counter = counterFor([limit(2, 600)]);
    await store().count(counter, countDigest('a'));
    await store().count(counter, countDigest('b'));
    for (let i = 0; i < 10; i += 1) expect(await store().count(counter, countDigest('a'))).toBe('counted');
    expect(await store().count(counter, countDigest('c'))).toBe('refused');
  });

  it('refuses when any one window is full, and then adds to none of them', async () => {
    const limits = [limit(5, 600), limit(2, 86_400)];
    await store().count(counterFor(limits, T0, '+14155550001'), countDigest('x1'));
    // The next 10-minute window: the short one is empty, the daily one holds 1.
    await store().count(counterFor(limits, T0 + 600_000, '+14155550001'), countDigest('x2'));
    const third = counterFor(limits, T0 + 1_200_000, '+14155550001');
    expect(await store().count(third, countDigest('x3'))).toBe('refused');
    const item = await db.client.send(new GetCommand({ TableName: db.tableName, Key: { pk: third.partition, sk: third.sort } }));
    const short = third.windows[0]!.attribute;
    expect(item.Item?.[short]).toBeUndefined();
    expect((item.Item?.[third.windows[1]!.attribute] as Set<Uint8Array>).size).toBe(2);
  });

  it('removes the short window before the current one in the same write, so a busy counter does not grow', async () => {
    const limits = [limit(5, 600), limit(10, 86_400)];
    await store().count(counterFor(limits, T0, '+14155550002'), countDigest('y1'));
    const next = counterFor(limits, T0 + 600_000, '+14155550002');
    await store().count(next, countDigest('y2'));
    const item = await db.client.send(new GetCommand({ TableName: db.tableName, Key: { pk: next.partition, sk: next.sort } }));
    expect(Object.keys(item.Item ?? {}).filter((name) => name.startsWith('w600_'))).toEqual([next.windows[0]!.attribute]);
    expect(item.Item?.expiresAt).toBe(next.expiresAt);
  });

  it('lets exactly max of many concurrent distinct events through', async () => {
    const counter = counterFor([limit(5, 600)]);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store().count(counter, countDigest(`c${i}`))));
    expect(results.filter((r) => r === 'counted')).toHaveLength(5);
  });

  it('throws what is not a failed condition (the caller neither sends nor suppresses)', async () => {
    const broken = new DynamoDbLimitStore(db.client, 'no-such-table');
    await expect(broken.count(counterFor([limit(1, 600)]), countDigest('z'))).rejects.toThrow();
  });
});

describe('the exact request', () => {
  it('is one UpdateItem: ADD the digest to every window, conditional on room or on holding it, TTL at the longest window', async () => {
    const documents = mockClient(DynamoDBDocumentClient);
    try {
      documents.on(UpdateCommand).resolves({});
      const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
      const counter = counterFor([limit(5, 600), limit(10, 86_400)], T0, '+14155550003');
      const digest = countDigest('evt-1');
      await new DynamoDbLimitStore(client, 'ledger').count(counter, digest);
      const calls = documents.commandCalls(UpdateCommand);
      expect(calls).toHaveLength(1);
      const day = Math.floor(T0 / 86_400_000);
      const tenMinutes = Math.floor(T0 / 600_000);
      expect(calls[0]!.args[0].input).toEqual({
        TableName: 'ledger',
        Key: { pk: counter.partition, sk: `86400:${day}` },
        UpdateExpression: 'ADD #w0 :digests, #w1 :digests SET #expiresAt = :expiresAt REMOVE #p0',
        ConditionExpression:
          '(attribute_not_exists(#w0) OR size(#w0) < :max0 OR contains(#w0, :digest)) AND ' +
          '(attribute_not_exists(#w1) OR size(#w1) < :max1 OR contains(#w1, :digest))',
        ExpressionAttributeNames: { '#expiresAt': 'expiresAt', '#w0': `w600_${tenMinutes}`, '#p0': `w600_${tenMinutes - 1}`, '#w1': `w86400_${day}` },
        ExpressionAttributeValues: { ':digest': digest, ':digests': new Set([digest]), ':expiresAt': (day + 1) * 86_400, ':max0': 5, ':max1': 10 },
      });
      expect(countRequest('ledger', counter, digest)).toEqual(calls[0]!.args[0].input);
    } finally {
      documents.restore();
    }
  });
});

describe('what a counter write costs (DynamoDB bills an update on the larger of the old and new item, 1 write unit per KB)', () => {
  const { itemSize } = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: Record<string, unknown>): number };
  const registry = buildMessageClassRegistry();

  /**
   * The largest a counter item of these limits can be: the longest window full, and as many digests again
   * left in earlier short windows (every counted event is in the longest window too, so they are at most
   * its max), each in an attribute of its own.
   */
  function fullestItemBytes(limits: readonly MessageLimit[]): number {
    const counter = scopeCounts('x', limits, { eventId: 'e', recipientId: 'r', channel: 'sms', templateId: 't', address: '+14155550100' }, T0)[0]!;
    const longest = counter.windows[counter.windows.length - 1]!;
    const digests = (n: number) => ({ BS: Array.from({ length: n }, (_, i) => Buffer.from(countDigest(`event-${i}`)).toString('base64')) });
    const item: Record<string, unknown> = {
      pk: { S: counter.partition },
      sk: { S: counter.sort },
      expiresAt: { N: String(counter.expiresAt) },
      [longest.attribute]: digests(longest.max),
    };
    if (counter.windows.length > 1) for (let i = 0; i < longest.max; i += 1) item[`w600_${2_900_000 + i}`] = digests(1);
    return itemSize(item);
  }

  it.each([
    ['otp', 'address'],
    ['otp', 'recipient'],
    ['otp', 'number-block'],
    ['transactional', 'address'],
    ['marketing', 'recipient'],
  ] as const)('%s %s counter: at most 1 write unit, however full', (className, scope) => {
    const limits = registry.get(className)!.limits.filter((l) => l.scope === scope);
    expect(fullestItemBytes(limits)).toBeLessThanOrEqual(1024);
  });
});
