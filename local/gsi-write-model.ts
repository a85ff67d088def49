import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';

/**
 * Counts the global-secondary-index writes DynamoDB would bill for a stream of successful
 * writes. dynalite reports table units only, so the benches count index units here, from the
 * requests themselves, by DynamoDB's rules: an item entering an index costs one write, leaving
 * it one, changing an index key attribute two (delete and put); a keys-only index ignores every
 * other attribute. Hand-written: no library models DynamoDB's GSI billing.
 */

/** The key attributes of each index of a table. */
export type IndexKeys = readonly (readonly string[])[];

/** The ledger's indexes: pending (shard, claimedAt) and SMS message id. */
export const LEDGER_INDEX_KEYS: IndexKeys = [
  [LEDGER_TABLE.pendingIndex.partitionKey, LEDGER_TABLE.pendingIndex.sortKey],
  [LEDGER_TABLE.smsMessageIndex.partitionKey],
];

type Attributes = Readonly<Record<string, unknown>>;
type Shadow = Readonly<Record<string, string>>;

/** One write request as sent (document-client or wire-format attribute values alike). */
export interface WriteRequest {
  readonly operation: string;
  readonly input: Attributes;
}

export class GsiWriteModel {
  /** Index attribute values per item, as the successful writes left them. */
  private readonly items = new Map<string, Shadow>();

  constructor(private readonly indexesOf: (tableName: string) => IndexKeys) {}

  /** Index write units one successful write costs; 0 for reads and tables without indexes. */
  unitsFor(request: WriteRequest): number {
    const tableName = String(request.input.TableName ?? '');
    const indexes = this.indexesOf(tableName);
    if (indexes.length === 0) return 0;
    const tracked = [...new Set(indexes.flat())];
    const itemKey = itemKeyOf(request.input, tableName);
    if (itemKey === undefined) return 0;
    const before = this.items.get(itemKey) ?? {};
    const after = nextState(request, before, tracked);
    if (after === undefined) return 0;
    this.items.set(itemKey, after);
    return indexes.reduce((units, keys) => units + indexUnits(keys, before, after), 0);
  }
}

function indexUnits(keys: readonly string[], before: Shadow, after: Shadow): number {
  const wasIn = keys.every((k) => before[k] !== undefined);
  const isIn = keys.every((k) => after[k] !== undefined);
  if (wasIn && isIn) return keys.some((k) => before[k] !== after[k]) ? 2 : 0;
  return wasIn || isIn ? 1 : 0;
}

function nextState(request: WriteRequest, before: Shadow, tracked: readonly string[]): Shadow | undefined {
  const { input } = request;
  switch (request.operation) {
    case 'PutItem': {
      const item = (input.Item ?? {}) as Attributes;
      return Object.fromEntries(tracked.flatMap((name) => (item[name] === undefined ? [] : [[name, plain(item[name])]])));
    }
    case 'DeleteItem':
      return {};
    case 'UpdateItem':
      return applyUpdate(
        String(input.UpdateExpression ?? ''),
        (input.ExpressionAttributeNames ?? {}) as Record<string, string>,
        (input.ExpressionAttributeValues ?? {}) as Attributes,
        before,
        tracked,
      );
    default:
      return undefined;
  }
}

/** Applies the SET and REMOVE clauses of an update expression to the tracked attributes. */
export function applyUpdate(
  expression: string,
  names: Readonly<Record<string, string>>,
  values: Attributes,
  before: Shadow,
  tracked: readonly string[],
): Shadow {
  const next: Record<string, string> = { ...before };
  const resolve = (token: string) => names[token.trim()] ?? token.trim();
  for (const [, verb, body] of expression.matchAll(/\b(SET|REMOVE|ADD|DELETE)\b([\s\S]*?)(?=\b(?:SET|REMOVE|ADD|DELETE)\b|$)/g)) {
    for (const part of splitTopLevel(body ?? '')) {
      if (verb === 'REMOVE') {
        const name = resolve(part);
        if (tracked.includes(name)) delete next[name];
      } else if (verb === 'SET') {
        const at = part.indexOf('=');
        const name = resolve(part.slice(0, at));
        if (!tracked.includes(name)) continue;
        const operand = part.slice(at + 1).trim();
        if (!operand.startsWith(':')) throw new Error(`GSI write model: cannot evaluate "${part.trim()}" for index attribute ${name}`);
        next[name] = plain(values[operand]);
      }
    }
  }
  return next;
}

/** Splits on commas outside parentheses (`if_not_exists(a, :b)` stays whole). */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === '(') depth += 1;
    else if (body[i] === ')') depth -= 1;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts.filter((p) => p.trim() !== '');
}

function itemKeyOf(input: Attributes, tableName: string): string | undefined {
  const key = (input.Key ?? input.Item) as Attributes | undefined;
  if (!key) return undefined;
  const pk = key[LEDGER_TABLE.partitionKey];
  const sk = key[LEDGER_TABLE.sortKey];
  return pk === undefined ? undefined : `${tableName}\u0000${plain(pk)}\u0000${sk === undefined ? '' : plain(sk)}`;
}

/** A scalar attribute value as text, whether plain (document client) or wire-format (`{ S: "x" }`). */
function plain(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const wire = value as { S?: string; N?: string };
    if (wire.S !== undefined) return wire.S;
    if (wire.N !== undefined) return wire.N;
  }
  return String(value);
}
