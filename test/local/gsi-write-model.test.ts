import { describe, expect, it } from 'vitest';
import { GsiWriteModel, LEDGER_INDEX_KEYS } from '../../local/gsi-write-model';

const model = () => new GsiWriteModel((table) => (table === 'ledger' ? LEDGER_INDEX_KEYS : []));
const key = { pk: 'p', sk: 'k' };
const put = (item: Record<string, unknown>) => ({ operation: 'PutItem', input: { TableName: 'ledger', Item: { ...key, ...item } } });
const update = (expression: string, values: Record<string, unknown> = {}, names: Record<string, string> = {}) => ({
  operation: 'UpdateItem',
  input: { TableName: 'ledger', Key: key, UpdateExpression: expression, ExpressionAttributeValues: values, ExpressionAttributeNames: names },
});

// DynamoDB bills an index write when an item enters or leaves the index (1) or changes an index key (2).
describe('GSI write units, by DynamoDB rules', () => {
  it('a claim without pendingShard and its SENT outcome for an e-mail write no index', () => {
    const m = model();
    expect(m.unitsFor(put({ claimedAt: 1, state: 'PENDING' }))).toBe(0);
    expect(m.unitsFor(update('SET #state = :s, updatedAt = :now REMOVE pendingShard, lastRelease', { ':s': 'SENT', ':now': 2 }, { '#state': 'state' }))).toBe(0);
  });

  it('an indexed claim enters the pending index (1) and its outcome removes it (1)', () => {
    const m = model();
    expect(m.unitsFor(put({ claimedAt: 1, pendingShard: '3' }))).toBe(1);
    expect(m.unitsFor(update('SET #state = :s REMOVE pendingShard', { ':s': 'SENT' }, { '#state': 'state' }))).toBe(1);
  });

  it('a takeover of an indexed row moves its sort key: delete and put (2)', () => {
    const m = model();
    m.unitsFor(put({ claimedAt: 1, pendingShard: '3' }));
    expect(m.unitsFor(update('SET claimVersion = :v, claimedAt = :now REMOVE lastRelease', { ':v': 2, ':now': 5 }))).toBe(2);
  });

  it('a takeover that adds pendingShard enters the index (1); an SMS outcome adds its message id entry (1)', () => {
    const m = model();
    m.unitsFor(put({ claimedAt: 1 }));
    expect(m.unitsFor(update('SET claimedAt = :now, #shard = :shard', { ':now': 5, ':shard': '3' }, { '#shard': 'pendingShard' }))).toBe(1);
    expect(m.unitsFor(update('SET smsMessageId = :id REMOVE pendingShard', { ':id': 'm-1' }))).toBe(2);
  });

  it('understands wire-format values and ignores tables without indexes', () => {
    const m = model();
    expect(m.unitsFor({ operation: 'PutItem', input: { TableName: 'ledger', Item: { pk: { S: 'p' }, sk: { S: 'k' }, claimedAt: { N: '1' }, pendingShard: { S: '1' } } } })).toBe(1);
    expect(model().unitsFor({ operation: 'PutItem', input: { TableName: 'other', Item: { pk: 'x', pendingShard: '1', claimedAt: 1 } } })).toBe(0);
  });

  it('refuses an index attribute set from an expression it cannot evaluate, rather than miscount', () => {
    expect(() => model().unitsFor(update('SET pendingShard = if_not_exists(pendingShard, :s)', { ':s': '1' }))).toThrow(/cannot evaluate/);
  });
});
