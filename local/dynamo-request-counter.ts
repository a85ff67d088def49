import { GsiWriteModel, type IndexKeys } from './gsi-write-model';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const ITEM_COMMANDS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'GetItem', 'Query', 'Scan']);

/** lib-dynamodb's document commands name themselves `PutCommand`; the wire operation is `PutItem`. */
function operationOf(commandName: string): string {
  const name = commandName.replace(/Command$/, '');
  return ({ Put: 'PutItem', Update: 'UpdateItem', Get: 'GetItem', Delete: 'DeleteItem' } as Record<string, string>)[name] ?? name;
}

/** Totals one DynamoDB client sent, counted in SDK middleware (so every adapter is counted alike). */
export interface DynamoRequestTotals {
  readonly requests: number;
  readonly reads: number;
  readonly writes: number;
  readonly byOperation: Readonly<Record<string, number>>;
  /** Conditional writes whose condition failed. */
  readonly conditionalFailures: number;
  /** ... of which the server did not return the item (dynalite), so the caller needs a GetItem. */
  readonly conditionalFailuresWithoutItem: number;
  /** Sum of ConsumedCapacity.CapacityUnits over responses that reported it. */
  readonly capacityUnits: number;
  readonly responsesWithCapacity: number;
  /** Index write units DynamoDB would bill for the successful writes (see gsi-write-model.ts). */
  readonly gsiWriteUnits: number;
}

/**
 * Counts requests on a DynamoDB client and asks for `ReturnConsumedCapacity: TOTAL` on item
 * operations. dynalite reports capacity for the table only (no GSI units; AWS includes them).
 */
export class DynamoRequestCounter {
  private totals = emptyTotals();
  private readonly gsi: GsiWriteModel;
  private modelError: Error | undefined;

  /** @param indexesOf the key attributes of each GSI of a table. @default no table has indexes */
  constructor(indexesOf: (tableName: string) => IndexKeys = () => []) {
    this.gsi = new GsiWriteModel(indexesOf);
  }

  attach(client: DynamoDBClient): this {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = operationOf(context.commandName ?? 'Unknown');
        const input = args.input as Record<string, unknown>;
        if (ITEM_COMMANDS.has(operation) && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
        this.record(operation);
        try {
          const result = await next(args);
          if (WRITES.has(operation)) this.countIndexWrites(operation, input);
          const capacity = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
          if (capacity?.CapacityUnits !== undefined) {
            this.totals.capacityUnits += capacity.CapacityUnits;
            this.totals.responsesWithCapacity += 1;
          }
          return result;
        } catch (error) {
          if ((error as Error).name === 'ConditionalCheckFailedException') {
            this.totals.conditionalFailures += 1;
            if (!(error as { Item?: unknown }).Item) this.totals.conditionalFailuresWithoutItem += 1;
          }
          throw error;
        }
      },
      { step: 'initialize', name: 'localRequestCounter', override: true },
    );
    return this;
  }

  /** A write the model cannot price fails the measurement (at the next snapshot), never the request. */
  private countIndexWrites(operation: string, input: Record<string, unknown>): void {
    try {
      this.totals.gsiWriteUnits += this.gsi.unitsFor({ operation, input });
    } catch (error) {
      this.modelError ??= error as Error;
    }
  }

  snapshot(): DynamoRequestTotals {
    if (this.modelError) throw this.modelError;
    return { ...this.totals, byOperation: { ...this.totals.byOperation } };
  }

  reset(): void {
    this.totals = emptyTotals();
  }

  private record(operation: string): void {
    this.totals.requests += 1;
    if (WRITES.has(operation)) this.totals.writes += 1;
    if (READS.has(operation)) this.totals.reads += 1;
    this.totals.byOperation[operation] = (this.totals.byOperation[operation] ?? 0) + 1;
  }
}

function emptyTotals() {
  return {
    requests: 0,
    reads: 0,
    writes: 0,
    byOperation: {} as Record<string, number>,
    conditionalFailures: 0,
    conditionalFailuresWithoutItem: 0,
    capacityUnits: 0,
    responsesWithCapacity: 0,
    gsiWriteUnits: 0,
  };
}

/** The difference between two snapshots. */
export function totalsBetween(before: DynamoRequestTotals, after: DynamoRequestTotals): DynamoRequestTotals {
  const byOperation: Record<string, number> = {};
  for (const [op, n] of Object.entries(after.byOperation)) {
    const delta = n - (before.byOperation[op] ?? 0);
    if (delta) byOperation[op] = delta;
  }
  return {
    requests: after.requests - before.requests,
    reads: after.reads - before.reads,
    writes: after.writes - before.writes,
    byOperation,
    conditionalFailures: after.conditionalFailures - before.conditionalFailures,
    conditionalFailuresWithoutItem: after.conditionalFailuresWithoutItem - before.conditionalFailuresWithoutItem,
    capacityUnits: after.capacityUnits - before.capacityUnits,
    responsesWithCapacity: after.responsesWithCapacity - before.responsesWithCapacity,
    gsiWriteUnits: after.gsiWriteUnits - before.gsiWriteUnits,
  };
}
