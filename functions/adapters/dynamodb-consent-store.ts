import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsentRecord, ConsentStore } from '../core/policy/consent';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';

/** Partition keys of consent records start with this: no ledger key (16 hex characters) or limit counter (`limit#`) does. */
export const CONSENT_PARTITION_PREFIX = 'consent#';
const CONSENT_SORT_KEY = 'consent';

/** The item key of a consent record. */
export function consentItemKey(consentKey: string): Record<typeof LEDGER_TABLE.partitionKey | typeof LEDGER_TABLE.sortKey, string> {
  return { [LEDGER_TABLE.partitionKey]: `${CONSENT_PARTITION_PREFIX}${consentKey}`, [LEDGER_TABLE.sortKey]: CONSENT_SORT_KEY };
}

/**
 * Consent records as items of the ledger table, beside the rows and the limit counters: partition
 * `consent#<32 hex>` (a hash of channel and address, never the address), sort key `consent`. No TTL: an
 * opt-out is honoured until the recipient opts in again. No index attribute: no index write. Every write
 * is conditional on the record holding no later change (`at`), so a duplicate, a retry after its own
 * success and a late event are all no-ops.
 */
export class DynamoDbConsentStore implements ConsentStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  async read(consentKey: string): Promise<ConsentRecord | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: consentItemKey(consentKey), ConsistentRead: true }));
    const item = result.Item;
    if (!item) return undefined;
    const topics = item.optedOutTopics;
    return {
      all: item.optedOutAll === true,
      topics: topics instanceof Set ? [...(topics as Set<string>)].sort() : [],
      at: typeof item.changedAt === 'number' ? item.changedAt : 0,
      source: typeof item.source === 'string' ? item.source : 'unknown',
    };
  }

  async withdraw(consentKey: string, withdrawn: { readonly all: boolean; readonly topics: readonly string[] }, at: number, source: string): Promise<void> {
    const set = ['#changedAt = :at', '#source = :source'];
    const values: Record<string, unknown> = { ':at': at, ':source': source };
    const names: Record<string, string> = { '#changedAt': 'changedAt', '#source': 'source' };
    if (withdrawn.all) {
      set.push('#all = :all');
      names['#all'] = 'optedOutAll';
      values[':all'] = true;
    }
    let add = '';
    if (withdrawn.topics.length > 0) {
      names['#topics'] = 'optedOutTopics';
      values[':topics'] = new Set(withdrawn.topics);
      add = ' ADD #topics :topics';
    }
    await this.write(consentKey, `SET ${set.join(', ')}${add}`, names, values);
  }

  async replace(consentKey: string, record: ConsentRecord): Promise<void> {
    const names: Record<string, string> = { '#changedAt': 'changedAt', '#source': 'source', '#all': 'optedOutAll', '#topics': 'optedOutTopics' };
    const values: Record<string, unknown> = { ':at': record.at, ':source': record.source, ':all': record.all };
    // A string set cannot be empty: no topic withdrawn is no attribute.
    const hasTopics = record.topics.length > 0;
    if (hasTopics) values[':topics'] = new Set(record.topics);
    const update = `SET #changedAt = :at, #source = :source, #all = :all${hasTopics ? ', #topics = :topics' : ' REMOVE #topics'}`;
    await this.write(consentKey, update, names, values);
  }

  private async write(consentKey: string, update: string, names: Record<string, string>, values: Record<string, unknown>): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: consentItemKey(consentKey),
          UpdateExpression: update,
          // A later change already recorded wins; the same change again (a retry, a duplicate event) rewrites what is there.
          ConditionExpression: 'attribute_not_exists(#changedAt) OR #changedAt <= :at',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
