import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';
import type { PageCursor, StalePendingPage, StalePendingSource } from '../core/ledger/stale-pending';
import { LedgerExpression } from './ledger-expression';
import type { LedgerTableClient } from './ledger-table-client';

/** The pending index of the ledger table: stale claims, oldest first, one shard at a time (never a scan). */
export class DynamoDbStalePending implements StalePendingSource {
  constructor(private readonly table: LedgerTableClient) {}

  async listStalePending(shard: string, claimedBefore: number, limit: number, cursor?: PageCursor): Promise<StalePendingPage> {
    const { name, partitionKey, sortKey } = LEDGER_TABLE.pendingIndex;
    const x = new LedgerExpression();
    const result = await this.table.doc.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: name,
        KeyConditionExpression: `${x.is(partitionKey, 'shard', shard)} AND ${x.name(sortKey)} < ${x.value('before', claimedBefore)}`,
        ...x.attributes(),
        ScanIndexForward: true,
        Limit: limit,
        ...(cursor ? { ExclusiveStartKey: { ...cursor } } : {}),
      }),
    );
    const rows = (result.Items ?? []).map((item) => ({ key: String(item[LEDGER_TABLE.sortKey]), claimedAt: Number(item[sortKey]) }));
    return { rows, cursor: result.LastEvaluatedKey };
  }
}
