import { createRequire } from 'node:module';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

// dynalite's implementation of DynamoDB's item-size rules. It counts a string's UTF-16 code units where DynamoDB
// counts its UTF-8 bytes, and reads binary values as base64: items are handed over in that form (byteForm).
const { itemSize } = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: Record<string, unknown>): number };

/** An attribute value with every string as its UTF-8 bytes (one character each) and every binary as base64, as dynalite measures them. */
function byteForm(value: AttributeValue): Record<string, unknown> {
  if (value.S !== undefined) return { S: Buffer.from(value.S, 'utf8').toString('latin1') };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.M !== undefined) return { M: Object.fromEntries(Object.entries(value.M).map(([k, v]) => [k, byteForm(v)])) };
  if (value.L !== undefined) return { L: value.L.map(byteForm) };
  return value as unknown as Record<string, unknown>;
}

/** Bytes of an item (as the document client writes it) by DynamoDB's rules: what its write units are billed on, 1 per started KB. */
export function itemBytes(item: Record<string, unknown>): number {
  const marshalled = marshall(item, { removeUndefinedValues: true });
  return itemSize(Object.fromEntries(Object.entries(marshalled).map(([name, value]) => [name, byteForm(value)])));
}
