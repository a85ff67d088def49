import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { ledgerItemKey } from '../core/ledger/ledger-table';
import type { LedgerExpression } from './ledger-expression';
import { itemToRow } from './ledger-item';

/** A conditional request's expressions, built on one {@link LedgerExpression}. */
export interface ConditionalWrite {
  readonly expression: LedgerExpression;
  readonly condition: string;
}

/**
 * The ledger table as each port's adapter reaches it: one document client, strongly consistent reads,
 * and conditional writes whose failed condition is an answer (`false`), not an error.
 */
export class LedgerTableClient {
  readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** Strongly consistent read. */
  async get(key: string): Promise<LedgerRow | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: ledgerItemKey(key), ConsistentRead: true }));
    return result.Item ? itemToRow(result.Item) : undefined;
  }

  /** UpdateItem under a condition: true when written, false when the condition failed. */
  async conditionalUpdate(key: string, update: string, { expression, condition }: ConditionalWrite): Promise<boolean> {
    return this.unlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: ledgerItemKey(key),
          UpdateExpression: update,
          ConditionExpression: condition,
          ...expression.attributes(),
        }),
      ),
    );
  }

  /** PutItem under a condition: true when written, false when the condition failed. */
  async conditionalPut(item: Record<string, unknown>, { expression, condition }: ConditionalWrite): Promise<boolean> {
    return this.unlessConditionFails(() =>
      this.doc.send(new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: condition, ...expression.attributes() })),
    );
  }

  private async unlessConditionFails(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
