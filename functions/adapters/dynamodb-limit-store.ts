import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';
import type { CountResult, LimitStore } from '../core/policy/limit-store';
import type { ScopeCount } from '../core/policy/message-limits';

/**
 * Limit counters as items of the ledger table, beside the rows: partition `limit#<hash>` (no ledger
 * key, 64 hex characters cut to 16, starts with `limit#`), sort key the longest window's index. One
 * item per counter and longest window holds a binary set of 16-byte event digests per window; it never
 * carries an index attribute, so it costs no index write, and TTL (`expiresAt`, the end of the longest
 * window) deletes it whole.
 */
export class DynamoDbLimitStore implements LimitStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  async count(counter: ScopeCount, digest: Uint8Array): Promise<CountResult> {
    try {
      await this.doc.send(new UpdateCommand(countRequest(this.tableName, counter, digest)));
      return 'counted';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'refused';
      throw error;
    }
  }
}

/**
 * The one conditional write of a counter: every window has room for the digest or holds it already
 * (a retry of a write that succeeded, or another attempt of the same message, or a sibling message of
 * its event). Adding a member a set holds changes nothing, so the write is safe to repeat.
 */
export function countRequest(tableName: string, counter: ScopeCount, digest: Uint8Array): ConstructorParameters<typeof UpdateCommand>[0] {
  const names: Record<string, string> = { '#expiresAt': LEDGER_TABLE.ttlAttribute };
  const values: Record<string, unknown> = { ':digest': digest, ':digests': new Set([digest]), ':expiresAt': counter.expiresAt };
  const conditions: string[] = [];
  const adds: string[] = [];
  const removes: string[] = [];
  counter.windows.forEach((window, i) => {
    names[`#w${i}`] = window.attribute;
    values[`:max${i}`] = window.max;
    conditions.push(`(attribute_not_exists(#w${i}) OR size(#w${i}) < :max${i} OR contains(#w${i}, :digest))`);
    adds.push(`#w${i} :digests`);
    if (window.previousAttribute) {
      names[`#p${i}`] = window.previousAttribute;
      removes.push(`#p${i}`);
    }
  });
  return {
    TableName: tableName,
    Key: { [LEDGER_TABLE.partitionKey]: counter.partition, [LEDGER_TABLE.sortKey]: counter.sort },
    UpdateExpression: `ADD ${adds.join(', ')} SET #expiresAt = :expiresAt${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
