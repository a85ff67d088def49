import * as v from 'valibot';
import { CHANNELS } from '../core/event/idempotency-key';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { LEDGER_TABLE, ledgerItemKey } from '../core/ledger/ledger-table';
import { describeProblems, validate } from '../core/schema';
import { RenderedMessageSchema } from '../core/ledger/stored-request';
import { SUPPRESSION_REASONS } from '../core/policy/suppression';

const PK = LEDGER_TABLE.partitionKey;
const SK = LEDGER_TABLE.sortKey;

const text = v.string();
const count = v.number();

/** The message a PENDING row keeps for the reclaimer: packed (binary), or plain in a row written before packing. */
const StoredRequestSchema = v.lazy((input) => (input instanceof Uint8Array ? v.instance(Uint8Array) : RenderedMessageSchema));

/**
 * A ledger item as the ledger reads it: every field of {@link LedgerRow} with its type, the key under
 * the sort key. Attributes the row does not declare are kept as they are (loose), as before.
 */
const LedgerItemSchema = v.looseObject({
  [SK]: text,
  state: v.picklist(['PENDING', 'SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED']),
  claimVersion: count,
  ownerToken: text,
  claimedAt: count,
  leaseExpiresAt: count,
  attempts: count,
  eventId: text,
  recipientId: text,
  channel: v.picklist(CHANNELS),
  templateId: text,
  locale: v.optional(text),
  messageClass: text,
  occurredAt: text,
  createdAt: count,
  updatedAt: count,
  expiresAt: count,
  providerMessageId: v.optional(text),
  smsMessageId: v.optional(text),
  failureReason: v.optional(text),
  suppressionReason: v.optional(v.picklist(SUPPRESSION_REASONS)),
  lastRelease: v.optional(v.picklist(['transient', 'ambiguous'])),
  lastAmbiguousAt: v.optional(count),
  ambiguityStreak: v.optional(v.object({ unanswered: text, calls: count })),
  deliveryStatus: v.optional(text),
  deliveryStatusAt: v.optional(count),
  deliveryStatusRank: v.optional(count),
  deliveryStatusSource: v.optional(text),
  deliveryStatusDetail: v.optional(text),
  deliveryStatusClaimVersion: v.optional(count),
  deliveryStatusIntermediate: v.optional(v.literal(true)),
  deliveryStatusRecordedAt: v.optional(count),
  sendProvenBy: v.optional(text),
  deliveryProvenBy: v.optional(text),
  resolvedAt: v.optional(count),
  request: v.optional(StoredRequestSchema),
  pendingShard: v.optional(text),
  consentKey: v.optional(text),
  fallbackPlan: v.optional(v.instance(Uint8Array)),
  fallbackKey: v.optional(text),
  replaces: v.optional(text),
});

/** Item attribute names are the row's field names, except the key, stored as `sk` beside its event part `pk` (see ledgerItemKey). */
export function rowToItem(row: LedgerRow): Record<string, unknown> {
  const { key, ...rest } = row;
  return { ...ledgerItemKey(key), ...rest };
}

/**
 * The row an item holds, validated field by field.
 * @throws Error naming the item's sort key and what is wrong with it (never a value: rows hold addresses).
 */
export function itemToRow(item: Record<string, unknown>): LedgerRow {
  const checked = validate(LedgerItemSchema, item);
  if (!checked.success) {
    throw new Error(`Ledger item is not a send-ledger row (sk=${String(item[SK])}): ${describeProblems(checked.problems, 3)}`);
  }
  const { [PK]: _partition, [SK]: key, ...rest } = checked.output;
  return { key, ...rest };
}
