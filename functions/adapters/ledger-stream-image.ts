import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { EVENT_PART_LENGTH, KEY_LENGTH } from '../core/event/idempotency-key';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';
import { itemToRow } from './ledger-item';

const EVENT_PART = new RegExp(`^[0-9a-f]{${EVENT_PART_LENGTH}}$`);
const KEY = new RegExp(`^[0-9a-f]{${KEY_LENGTH}}$`);

/** An image of a DynamoDB stream record: the item in DynamoDB JSON, as the Lambda event carries it. */
export type StreamImage = Record<string, unknown>;

/**
 * The ledger row a stream image holds, or undefined for an item of the table that is no message (a limit
 * counter `limit#...`, a consent record `consent#...`): only a message's row has a 16-hex event part and a
 * 64-hex key. The row comes without `request`, `consentKey` and `fallbackPlan` (its `fallbackKey` stays).
 * @throws Error naming the key (never a value) when a message's row is not a valid ledger row.
 */
export function ledgerRowOfImage(image: StreamImage | undefined): LedgerRow | undefined {
  if (image === undefined) return undefined;
  const item = unmarshall(image as Record<string, AttributeValue>);
  const pk = item[LEDGER_TABLE.partitionKey];
  const sk = item[LEDGER_TABLE.sortKey];
  if (typeof pk !== 'string' || typeof sk !== 'string' || !EVENT_PART.test(pk) || !KEY.test(sk)) return undefined;
  // The rendered message (addresses, content) is never read for an outcome, and in a Lambda event a packed one is
  // base64 text rather than bytes: it is dropped before the row is validated, with the consent key beside it, and
  // so is a fallback's plan (addresses and template data, packed alike): its readers read the row itself.
  const { request: _request, consentKey: _consentKey, fallbackPlan: _fallbackPlan, ...identifiers } = item;
  return itemToRow(identifiers);
}
