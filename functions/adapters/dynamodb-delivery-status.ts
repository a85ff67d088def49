import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deliveryStatusRank, type DeliveryStatusStore, type DeliveryStatusUpdate, type RecordStatusResult } from '../core/provider/delivery-status';
import { eventProof, eventProvesDelivery } from '../core/provider/delivery-status-meaning';
import { LEDGER_TABLE, ledgerItemKey } from '../core/ledger/ledger-table';
import type { Suppression } from '../core/policy/suppression';
import { LedgerExpression } from './ledger-expression';
import type { LedgerTableClient } from './ledger-table-client';

/** Delivery-status evidence onto ledger rows: never touches `state`, the claim or the TTL. */
export class DynamoDbDeliveryStatus implements DeliveryStatusStore {
  constructor(private readonly table: LedgerTableClient) {}

  async recordDeliveryStatus(key: string, update: DeliveryStatusUpdate, nowMs: number): Promise<RecordStatusResult> {
    const x = new LedgerExpression();
    const rank = deliveryStatusRank(update.status);
    const intermediate = update.intermediate === true;
    const proves = eventProof(update.status, { intermediate });
    const provesSent = proves === 'sent';
    // Every status that proves a delivery proves a send too (test/core/provider/status-meaning-coherence.test.ts).
    const provesDelivery = eventProvesDelivery(update.status, { intermediate, detail: update.detail });
    // A refusal's id is of a message that was not sent: a row settled on evidence carries the id of one that was.
    const messageId = proves === 'not-sent' ? undefined : update.providerMessageId;
    const set =
      `SET ${x.is('deliveryStatus', 'status', update.status)}, ${x.is('deliveryStatusAt', 'at', update.at)}, ${x.is('deliveryStatusRank', 'rank', rank)}, ` +
      `${x.is('deliveryStatusSource', 'source', update.source)}, ${x.is('deliveryStatusRecordedAt', 'now', nowMs)}` +
      (update.detail ? `, ${x.is('deliveryStatusDetail', 'detail', update.detail)}` : '') +
      (messageId ? `, ${x.name('providerMessageId')} = if_not_exists(${x.name('providerMessageId')}, ${x.value('providerId', messageId)})` : '') +
      (update.claimVersion !== undefined ? `, ${x.is('deliveryStatusClaimVersion', 'claimVersion', update.claimVersion)}` : '') +
      (intermediate ? `, ${x.is('deliveryStatusIntermediate', 'intermediate', true)}` : '') +
      // The first proof of a send stays: a later event replaces the status, never the proof.
      (provesSent ? `, ${x.name('sendProvenBy')} = if_not_exists(${x.name('sendProvenBy')}, ${x.value('status', update.status)})` : '') +
      // So does the first proof of a delivery: a later uncertain word (an out-of-office bounce) never makes it "possibly".
      (provesDelivery ? `, ${x.name('deliveryProvenBy')} = if_not_exists(${x.name('deliveryProvenBy')}, ${x.value('status', update.status)})` : '') +
      removed(x, [
        update.detail ? undefined : 'deliveryStatusDetail',
        update.claimVersion !== undefined ? undefined : 'deliveryStatusClaimVersion',
        intermediate ? undefined : 'deliveryStatusIntermediate',
      ]);
    // Later event time wins; at equal time the later stage (higher rank) wins, and at an equal stage a final word
    // replaces an intermediate one (End User Messaging's isFinal). A duplicate fails all three.
    const at = x.name('deliveryStatusAt');
    const sameStage = `${at} = ${x.value('at', update.at)} AND ${x.name('deliveryStatusRank')}`;
    const condition =
      `attribute_exists(${x.name(LEDGER_TABLE.partitionKey)}) AND (attribute_not_exists(${at}) OR ${at} < ${x.value('at', update.at)} ` +
      `OR (${sameStage} < ${x.value('rank', rank)})` +
      (intermediate ? '' : ` OR (${sameStage} = ${x.value('rank', rank)} AND attribute_exists(${x.name('deliveryStatusIntermediate')}))`) +
      ')';
    if (await this.table.conditionalUpdate(key, set, { expression: x, condition })) return 'recorded';
    // Older than the row's status, but proof of a send or a delivery the row lacks (another attempt's refusal, or
    // this mail's later out-of-office bounce, came first): one more conditional write, only on this out-of-order
    // path, keeps the proof.
    if (provesSent && (await this.recordProofOnly(key, { status: update.status, messageId, provesDelivery }))) return 'recorded';
    return (await this.table.get(key)) ? 'superseded' : 'no-row';
  }

  /**
   * Sets `sendProvenBy` and, for a proof of delivery, `deliveryProvenBy`, each only where the row has none (and the
   * sent message's id, if the row has none), on an existing row that lacks one of them; false when the row is
   * missing or already holds every proof this event gives.
   */
  private recordProofOnly(key: string, proof: { readonly status: string; readonly messageId: string | undefined; readonly provesDelivery: boolean }): Promise<boolean> {
    const x = new LedgerExpression();
    const keep = (field: 'sendProvenBy' | 'deliveryProvenBy') => `${x.name(field)} = if_not_exists(${x.name(field)}, ${x.value('status', proof.status)})`;
    const set =
      `SET ${keep('sendProvenBy')}` +
      (proof.provesDelivery ? `, ${keep('deliveryProvenBy')}` : '') +
      (proof.messageId ? `, ${x.name('providerMessageId')} = if_not_exists(${x.name('providerMessageId')}, ${x.value('providerId', proof.messageId)})` : '');
    const lacks = proof.provesDelivery
      ? `(attribute_not_exists(${x.name('sendProvenBy')}) OR attribute_not_exists(${x.name('deliveryProvenBy')}))`
      : `attribute_not_exists(${x.name('sendProvenBy')})`;
    const condition = `attribute_exists(${x.name(LEDGER_TABLE.partitionKey)}) AND ${lacks}`;
    return this.table.conditionalUpdate(key, set, { expression: x, condition });
  }

  async keyForSmsMessageId(smsMessageId: string): Promise<string | undefined> {
    const { name, partitionKey } = LEDGER_TABLE.smsMessageIndex;
    const x = new LedgerExpression();
    const result = await this.table.doc.send(
      new QueryCommand({ TableName: this.table.tableName, IndexName: name, KeyConditionExpression: x.is(partitionKey, 'id', smsMessageId), ...x.attributes(), Limit: 1 }),
    );
    const key = result.Items?.[0]?.[LEDGER_TABLE.sortKey];
    return key === undefined ? undefined : String(key);
  }

  async consentKeyOfRow(key: string): Promise<string | undefined> {
    const x = new LedgerExpression();
    const result = await this.table.doc.send(
      new GetCommand({ TableName: this.table.tableName, Key: ledgerItemKey(key), ProjectionExpression: x.name('consentKey'), ...x.attributes(), ConsistentRead: true }),
    );
    const consentKey = result.Item?.consentKey;
    return typeof consentKey === 'string' ? consentKey : undefined;
  }

  async suppressAfterAcceptance(key: string, suppression: Suppression, nowMs: number): Promise<boolean> {
    const x = new LedgerExpression();
    const update =
      `SET ${x.is('state', 'suppressed', 'SUPPRESSED')}, ${x.is('suppressionReason', 'reason', suppression.reason)}, ` +
      `${x.is('failureReason', 'detail', suppression.detail)}, ${x.is('updatedAt', 'now', nowMs)}`;
    const condition = `${x.is('state', 'sent', 'SENT')} AND attribute_exists(${x.name('consentKey')})`;
    return this.table.conditionalUpdate(key, update, { expression: x, condition });
  }
}

/** A REMOVE clause for the status fields this event does not carry: none may describe an earlier event. */
function removed(x: LedgerExpression, fields: ReadonlyArray<'deliveryStatusDetail' | 'deliveryStatusClaimVersion' | 'deliveryStatusIntermediate' | undefined>): string {
  const names = fields.filter((field) => field !== undefined).map((field) => x.name(field));
  return names.length === 0 ? '' : ` REMOVE ${names.join(', ')}`;
}
