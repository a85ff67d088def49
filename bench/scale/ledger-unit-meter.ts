import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'PutCommand', 'UpdateCommand', 'DeleteCommand']);
const READS = new Set(['GetItemCommand', 'GetCommand', 'QueryCommand', 'ScanCommand']);

/** Table units a client's requests consumed, as the server reported them, by kind. */
export interface LedgerUnitTally {
  /** ConsumedCapacity of writes that succeeded (dynalite prices them by item size, as DynamoDB does). */
  readonly successfulWriteUnits: number;
  /** Conditional writes whose condition failed: DynamoDB bills each as a write of the item (1 unit under 1 KB). */
  readonly failedConditionalWrites: number;
  /** ... of which dynalite returned no item, so the sender read it with a GetItem that DynamoDB would not need. */
  readonly failedWithoutItem: number;
  /** ConsumedCapacity of reads. */
  readonly readUnits: number;
  readonly writeRequests: number;
}

/**
 * Adds up the table units of every request `client` sends, write by write and read by read, so a round can say
 * how many units each message cost; dynalite reports table units only (index entries: local/gsi-write-model.ts).
 * Asks for `ReturnConsumedCapacity: TOTAL` where the request did not.
 */
export function meterLedgerUnits(client: DynamoDBClient): () => LedgerUnitTally {
  const t = { successfulWriteUnits: 0, failedConditionalWrites: 0, failedWithoutItem: 0, readUnits: 0, writeRequests: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const write = WRITES.has(command);
      const input = args.input as Record<string, unknown>;
      if ((write || READS.has(command)) && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
      if (write) t.writeRequests += 1;
      try {
        const result = await next(args);
        const units = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits ?? 0;
        if (write) t.successfulWriteUnits += units;
        else if (READS.has(command)) t.readUnits += units;
        return result;
      } catch (error) {
        if (write && (error as Error).name === 'ConditionalCheckFailedException') {
          t.failedConditionalWrites += 1;
          if (!(error as { Item?: unknown }).Item) t.failedWithoutItem += 1;
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'scaleLedgerUnitMeter' },
  );
  return () => ({ ...t });
}
