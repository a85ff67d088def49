import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';

/** CreateTable input for the ledger, from the same definition the CDK stack uses. */
export function ledgerCreateTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, pendingIndex, smsMessageIndex } = LEDGER_TABLE;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: 'S' },
      { AttributeName: sortKey, AttributeType: 'S' },
      { AttributeName: pendingIndex.partitionKey, AttributeType: 'S' },
      { AttributeName: pendingIndex.sortKey, AttributeType: 'N' },
      { AttributeName: smsMessageIndex.partitionKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: pendingIndex.name,
        KeySchema: [
          { AttributeName: pendingIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: pendingIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: pendingIndex.projection },
      },
      {
        IndexName: smsMessageIndex.name,
        KeySchema: [{ AttributeName: smsMessageIndex.partitionKey, KeyType: 'HASH' }],
        Projection: { ProjectionType: smsMessageIndex.projection },
      },
    ],
  };
}

/**
 * Creates the ledger table if it does not exist and waits until it is active, then enables
 * TTL where the server supports it (dynalite does not; expired rows are treated as absent
 * by the ledger's own conditions either way).
 */
export async function ensureLedgerTable(client: DynamoDBClient, tableName: string, timeoutMs = 60_000): Promise<void> {
  try {
    await client.send(new CreateTableCommand(ledgerCreateTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) break;
    if (Date.now() > deadline) throw new Error(`Ledger table ${tableName} did not become ACTIVE within ${timeoutMs}ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: LEDGER_TABLE.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    const name = (error as Error).name;
    if (name !== 'UnknownOperationException' && name !== 'ValidationException') throw error;
  }
}
