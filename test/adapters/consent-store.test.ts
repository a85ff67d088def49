import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { consentItemKey, DynamoDbConsentStore } from '../../functions/adapters/dynamodb-consent-store';
import { useTestLedger } from '../support/ledger-server';

const db = useTestLedger();
const store = () => new DynamoDbConsentStore(db.client, db.tableName);
let n = 0;
const freshKey = () => `${String((n += 1)).padStart(32, '0')}`;

describe('consent records on a real DynamoDB-compatible server', () => {
  it('no record: nothing withdrawn', async () => {
    expect(await store().read(freshKey())).toBeUndefined();
  });

  it('withdrawals add up: a topic, another topic, then all', async () => {
    const key = freshKey();
    await store().withdraw(key, { all: false, topics: ['marketing'] }, 1_000, 'provider-refusal');
    await store().withdraw(key, { all: false, topics: ['newsletter'] }, 2_000, 'ses-bounce');
    expect(await store().read(key)).toEqual({ all: false, topics: ['marketing', 'newsletter'], at: 2_000, source: 'ses-bounce' });
    await store().withdraw(key, { all: true, topics: [] }, 3_000, 'sms-delivery-log');
    expect(await store().read(key)).toMatchObject({ all: true, topics: ['marketing', 'newsletter'] });
  });

  it('SES preference state replaces what was there, re-subscribing included; an older change arriving late is a no-op', async () => {
    const key = freshKey();
    await store().withdraw(key, { all: false, topics: ['marketing'] }, 1_000, 'provider-refusal');
    await store().replace(key, { all: false, topics: [], at: 5_000, source: 'ses-subscription' });
    expect(await store().read(key)).toEqual({ all: false, topics: [], at: 5_000, source: 'ses-subscription' });
    // The unsubscribe event the re-subscribe followed, delivered late: ignored.
    await store().replace(key, { all: true, topics: ['marketing'], at: 4_000, source: 'ses-subscription' });
    await store().withdraw(key, { all: true, topics: [] }, 4_500, 'ses-bounce');
    expect(await store().read(key)).toEqual({ all: false, topics: [], at: 5_000, source: 'ses-subscription' });
  });

  it('the same change twice (a retry after its own success, a duplicate event) leaves the record as it was', async () => {
    const key = freshKey();
    await store().withdraw(key, { all: true, topics: [] }, 1_000, 'sms-delivery-log');
    await store().withdraw(key, { all: true, topics: [] }, 1_000, 'sms-delivery-log');
    expect(await store().read(key)).toEqual({ all: true, topics: [], at: 1_000, source: 'sms-delivery-log' });
  });

  it('lives under consent#<key> beside the rows, with no TTL and no index attribute', async () => {
    const key = freshKey();
    await store().withdraw(key, { all: true, topics: [] }, 1_000, 'sms-delivery-log');
    const item = (await DynamoDBDocumentClient.from(db.client).send(new GetCommand({ TableName: db.tableName, Key: consentItemKey(key), ConsistentRead: true })))
      .Item!;
    expect(item.pk).toBe(`consent#${key}`);
    expect(Object.keys(item).sort()).toEqual(['changedAt', 'optedOutAll', 'pk', 'sk', 'source']);
  });
});
