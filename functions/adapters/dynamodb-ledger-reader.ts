import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerReader } from '../core/ledger/ledger-reader';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { eventPartitionKey, LEDGER_TABLE } from '../core/ledger/ledger-table';
import { LedgerExpression } from './ledger-expression';
import { itemToRow } from './ledger-item';
import type { LedgerTableClient } from './ledger-table-client';

/** Read-only look-ups for support tools: one row, or every row of one business event. */
export class DynamoDbLedgerReader implements LedgerReader {
  constructor(private readonly table: LedgerTableClient) {}

  get(key: string): Promise<LedgerRow | undefined> {
    return this.table.get(key);
  }

  async rowsForEvent(eventId: string): Promise<LedgerRow[]> {
    const rows: LedgerRow[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const x = new LedgerExpression();
      const result = await this.table.doc.send(
        new QueryCommand({
          TableName: this.table.tableName,
          // Every key of the event starts with its event part; another event may share it (64 bits).
          KeyConditionExpression: x.is(LEDGER_TABLE.partitionKey, 'partition', eventPartitionKey(eventId)),
          FilterExpression: x.is('eventId', 'eventId', eventId),
          ...x.attributes(),
          ConsistentRead: true,
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        }),
      );
      rows.push(...(result.Items ?? []).map(itemToRow));
      cursor = result.LastEvaluatedKey;
    } while (cursor);
    return rows;
  }
}
