import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeliveryStatusStore } from '../core/provider/delivery-status';
import type { LedgerReader } from '../core/ledger/ledger-reader';
import type { SendLedger } from '../core/ledger/send-ledger';
import type { StalePendingSource } from '../core/ledger/stale-pending';
import { DynamoDbDeliveryStatus } from './dynamodb-delivery-status';
import { DynamoDbLedgerReader } from './dynamodb-ledger-reader';
import { DynamoDbSendLedger } from './dynamodb-send-ledger';
import { DynamoDbStalePending } from './dynamodb-stale-pending';
import { LedgerTableClient } from './ledger-table-client';

export { itemToRow, rowToItem } from './ledger-item';

/**
 * The whole ledger table: its four ports' adapters over one client, for callers that need several of
 * them (a Lambda's wiring, the support CLI, tests). Each port's requests live in its own adapter.
 */
export class DynamoDbLedger implements SendLedger, StalePendingSource, DeliveryStatusStore, LedgerReader {
  readonly send: DynamoDbSendLedger;
  readonly pending: DynamoDbStalePending;
  readonly status: DynamoDbDeliveryStatus;
  readonly reader: DynamoDbLedgerReader;

  constructor(client: DynamoDBClient, tableName: string) {
    const table = new LedgerTableClient(client, tableName);
    this.send = new DynamoDbSendLedger(table);
    this.pending = new DynamoDbStalePending(table);
    this.status = new DynamoDbDeliveryStatus(table);
    this.reader = new DynamoDbLedgerReader(table);
  }

  claim: SendLedger['claim'] = (row, nowMs) => this.send.claim(row, nowMs);
  takeOver: SendLedger['takeOver'] = (key, fields) => this.send.takeOver(key, fields);
  complete: SendLedger['complete'] = (claim, terminal, nowMs, expiresAt) => this.send.complete(claim, terminal, nowMs, expiresAt);
  release: SendLedger['release'] = (claim, release, nowMs) => this.send.release(claim, release, nowMs);
  releaseUnconfirmed: SendLedger['releaseUnconfirmed'] = (attempt, release, nowMs) => this.send.releaseUnconfirmed(attempt, release, nowMs);
  get: SendLedger['get'] = (key) => this.send.get(key);
  listStalePending: StalePendingSource['listStalePending'] = (shard, claimedBefore, limit, cursor) =>
    this.pending.listStalePending(shard, claimedBefore, limit, cursor);
  recordDeliveryStatus: DeliveryStatusStore['recordDeliveryStatus'] = (key, update, nowMs) => this.status.recordDeliveryStatus(key, update, nowMs);
  keyForSmsMessageId: DeliveryStatusStore['keyForSmsMessageId'] = (smsMessageId) => this.status.keyForSmsMessageId(smsMessageId);
  consentKeyOfRow: DeliveryStatusStore['consentKeyOfRow'] = (key) => this.status.consentKeyOfRow(key);
  suppressAfterAcceptance: DeliveryStatusStore['suppressAfterAcceptance'] = (key, suppression, nowMs) =>
    this.status.suppressAfterAcceptance(key, suppression, nowMs);
  rowsForEvent: LedgerReader['rowsForEvent'] = (eventId) => this.reader.rowsForEvent(eventId);
}
