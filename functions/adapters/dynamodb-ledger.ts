import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { deliveryStatusRank, type DeliveryStatusStore, type DeliveryStatusUpdate, type RecordStatusResult } from '../core/delivery-status';
import type { Claim, LedgerRow } from '../core/ledger-record';
import { eventPartitionKey, LEDGER_TABLE, ledgerItemKey } from '../core/ledger-table';
import type { LedgerReader } from '../core/ledger-reader';
import type { ClaimResult, SendLedger, UnconfirmedClaim, Release, TakeoverFields, TerminalWrite } from '../core/send-ledger';
import type { PageCursor, StalePendingPage, StalePendingSource } from '../core/stale-pending';

const PK = LEDGER_TABLE.partitionKey;
const SK = LEDGER_TABLE.sortKey;

/**
 * Item attribute names are the LedgerRow field names, except the key, stored as `sk` beside
 * its event part `pk` (see ledgerItemKey).
 */
export function rowToItem(row: LedgerRow): Record<string, unknown> {
  const { key, ...rest } = row;
  return { ...ledgerItemKey(key), ...rest };
}

export function itemToRow(item: Record<string, unknown>): LedgerRow {
  const { [PK]: _partition, [SK]: key, ...rest } = item;
  if (typeof key !== 'string' || typeof rest.state !== 'string' || typeof rest.claimVersion !== 'number') {
    throw new Error(`Ledger item is not a send-ledger row (sk=${String(key)})`);
  }
  return { key, ...rest } as unknown as LedgerRow;
}

/**
 * The send ledger on DynamoDB. Every write is one conditional request; a failed
 * condition is an answer (`false` / the existing row), not an error.
 */
export class DynamoDbLedger implements SendLedger, StalePendingSource, DeliveryStatusStore, LedgerReader {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async claim(row: LedgerRow, nowMs: number): Promise<ClaimResult> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: rowToItem(row),
          // Absent, expired but not yet deleted by TTL, or exactly the row this request wrote (an SDK
          // retry after a lost response). Not merely "ours": a late copy of this request arriving
          // after our outcome or release must not put a settled row back to PENDING.
          ConditionExpression:
            'attribute_not_exists(#pk) OR #expiresAt <= :nowSeconds OR ' +
            '(#owner = :owner AND #state = :pending AND claimVersion = :version AND leaseExpiresAt = :lease)',
          ExpressionAttributeNames: { '#pk': PK, '#owner': 'ownerToken', '#expiresAt': LEDGER_TABLE.ttlAttribute, '#state': 'state' },
          ExpressionAttributeValues: {
            ':owner': row.ownerToken,
            ':nowSeconds': Math.floor(nowMs / 1000),
            ':pending': 'PENDING',
            ':version': row.claimVersion,
            ':lease': row.leaseExpiresAt,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // AWS and DynamoDB Local return the item; servers that do not (dynalite) cost one GetItem.
      const existing = error.Item ? itemToRow(unmarshall(error.Item)) : await this.get(row.key);
      return { claimed: false, existing };
    }
  }

  async takeOver(key: string, f: TakeoverFields): Promise<boolean> {
    const ambiguous = f.lastAmbiguousAt !== undefined;
    const shard = pendingShardPart(f.pendingShard);
    return this.conditionalUpdate({
      Key: ledgerItemKey(key),
      UpdateExpression:
        'SET claimVersion = :version, ownerToken = :owner, claimedAt = :now, leaseExpiresAt = :lease, ' +
        `attempts = :attempts, updatedAt = :now, #expiresAt = :expiresAt${ambiguous ? ', lastAmbiguousAt = :since' : ''}` +
        `${shard.set} REMOVE lastRelease`,
      // The old claim, or exactly this takeover already applied (an SDK retry after a lost response);
      // the lease tells a late copy of this request, arriving after our release, from a retry.
      ConditionExpression:
        '#state = :pending AND (claimVersion = :expected OR (claimVersion = :version AND ownerToken = :owner AND leaseExpiresAt = :lease))',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#expiresAt': LEDGER_TABLE.ttlAttribute,
        ...shard.names,
      },
      ExpressionAttributeValues: {
        ':version': f.claimVersion,
        ':owner': f.ownerToken,
        ':now': f.claimedAt,
        ':lease': f.leaseExpiresAt,
        ':attempts': f.attempts,
        ':expiresAt': f.expiresAt,
        ':pending': 'PENDING',
        ':expected': f.expectedClaimVersion,
        ...(ambiguous ? { ':since': f.lastAmbiguousAt } : {}),
        ...shard.values,
      },
    });
  }

  async complete(claim: Claim, outcome: TerminalWrite, nowMs: number, expiresAt: number): Promise<boolean> {
    const detail =
      outcome.state === 'SENT'
        ? { name: 'providerMessageId', value: outcome.providerMessageId }
        : { name: 'failureReason', value: outcome.state === 'SUPPRESSED' ? outcome.suppression.detail : outcome.reason };
    const smsMessageId = outcome.state === 'SENT' ? outcome.smsMessageId : undefined;
    const smsIndex = smsMessageId ? `, ${LEDGER_TABLE.smsMessageIndex.partitionKey} = :smsMessageId` : '';
    const suppression = outcome.state === 'SUPPRESSED' ? ', suppressionReason = :suppression' : '';
    return this.conditionalUpdate({
      Key: ledgerItemKey(claim.key),
      // The rendered request (addresses, content) is only needed while a resend is possible.
      UpdateExpression:
        `SET #state = :state, updatedAt = :now, resolvedAt = :now, #expiresAt = :expiresAt, ${detail.name} = :detail${smsIndex}${suppression} ` +
        `REMOVE ${LEDGER_TABLE.pendingIndex.partitionKey}, lastRelease, #request`,
      ConditionExpression: 'ownerToken = :owner AND claimVersion = :version',
      ExpressionAttributeNames: { '#state': 'state', '#expiresAt': LEDGER_TABLE.ttlAttribute, '#request': 'request' },
      ExpressionAttributeValues: {
        ':state': outcome.state,
        ':now': nowMs,
        ':expiresAt': expiresAt,
        ':detail': detail.value,
        ':owner': claim.ownerToken,
        ':version': claim.claimVersion,
        ...(smsMessageId ? { ':smsMessageId': smsMessageId } : {}),
        ...(outcome.state === 'SUPPRESSED' ? { ':suppression': outcome.suppression.reason } : {}),
      },
    });
  }

  async release(claim: Claim, release: Release, nowMs: number): Promise<boolean> {
    const ambiguous = release.lastAmbiguousAt !== undefined;
    return this.conditionalUpdate({
      Key: ledgerItemKey(claim.key),
      UpdateExpression:
        'SET leaseExpiresAt = :now, updatedAt = :now, lastRelease = :reason, failureReason = :detail' +
        (ambiguous ? ', lastAmbiguousAt = :since' : ''),
      ConditionExpression: 'ownerToken = :owner AND claimVersion = :version AND #state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':now': nowMs,
        ':reason': release.reason,
        ':detail': release.detail,
        ':owner': claim.ownerToken,
        ':version': claim.claimVersion,
        ':pending': 'PENDING',
        ...(ambiguous ? { ':since': release.lastAmbiguousAt } : {}),
      },
    });
  }

  async releaseUnconfirmed(attempt: UnconfirmedClaim, release: Release, nowMs: number): Promise<boolean> {
    if (attempt.kind === 'takeover') return this.releaseUnconfirmedTakeover(attempt.key, attempt.fields, release, nowMs);
    const row = attempt.row;
    const released: LedgerRow = {
      ...row,
      leaseExpiresAt: nowMs,
      updatedAt: nowMs,
      lastRelease: release.reason,
      failureReason: release.detail,
      // A claim row has no earlier ambiguity; undefined is not written (the document client drops it).
      lastAmbiguousAt: release.lastAmbiguousAt,
    };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: rowToItem(released),
          // The claim never happened, or it is still exactly ours: either way the row is now released.
          ConditionExpression:
            'attribute_not_exists(#pk) OR #expiresAt <= :nowSeconds OR (#owner = :owner AND claimVersion = :version AND #state = :pending)',
          ExpressionAttributeNames: { '#pk': PK, '#owner': 'ownerToken', '#expiresAt': LEDGER_TABLE.ttlAttribute, '#state': 'state' },
          ExpressionAttributeValues: {
            ':owner': row.ownerToken,
            ':nowSeconds': Math.floor(nowMs / 1000),
            ':version': row.claimVersion,
            ':pending': 'PENDING',
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** The takeover and its release in one write: whether or not the takeover executed, the row ends released at its version. */
  private async releaseUnconfirmedTakeover(key: string, f: TakeoverFields, release: Release, nowMs: number): Promise<boolean> {
    const ambiguous = f.lastAmbiguousAt !== undefined || release.lastAmbiguousAt !== undefined;
    const shard = pendingShardPart(f.pendingShard);
    return this.conditionalUpdate({
      Key: ledgerItemKey(key),
      UpdateExpression:
        'SET claimVersion = :version, ownerToken = :owner, claimedAt = :claimedAt, leaseExpiresAt = :now, attempts = :attempts, ' +
        `updatedAt = :now, #expiresAt = :expiresAt, lastRelease = :reason, failureReason = :detail${ambiguous ? ', lastAmbiguousAt = :since' : ''}` +
        shard.set,
      ConditionExpression: '#state = :pending AND (claimVersion = :expected OR (claimVersion = :version AND ownerToken = :owner))',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#expiresAt': LEDGER_TABLE.ttlAttribute,
        ...shard.names,
      },
      ExpressionAttributeValues: {
        ':version': f.claimVersion,
        ':owner': f.ownerToken,
        ':claimedAt': f.claimedAt,
        ':now': nowMs,
        ':attempts': f.attempts,
        ':expiresAt': f.expiresAt,
        ':reason': release.reason,
        ':detail': release.detail,
        ':pending': 'PENDING',
        ':expected': f.expectedClaimVersion,
        ...(ambiguous ? { ':since': release.lastAmbiguousAt ?? f.lastAmbiguousAt } : {}),
        ...shard.values,
      },
    });
  }

  async get(key: string): Promise<LedgerRow | undefined> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: ledgerItemKey(key), ConsistentRead: true }),
    );
    return result.Item ? itemToRow(result.Item) : undefined;
  }

  async listStalePending(shard: string, claimedBefore: number, limit: number, cursor?: PageCursor): Promise<StalePendingPage> {
    const { name, partitionKey, sortKey } = LEDGER_TABLE.pendingIndex;
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: name,
        KeyConditionExpression: '#shard = :shard AND #claimedAt < :before',
        ExpressionAttributeNames: { '#shard': partitionKey, '#claimedAt': sortKey },
        ExpressionAttributeValues: { ':shard': shard, ':before': claimedBefore },
        ScanIndexForward: true,
        Limit: limit,
        ...(cursor ? { ExclusiveStartKey: { ...cursor } } : {}),
      }),
    );
    const rows = (result.Items ?? []).map((item) => ({ key: String(item[SK]), claimedAt: Number(item[sortKey]) }));
    return { rows, cursor: result.LastEvaluatedKey };
  }

  async recordDeliveryStatus(key: string, update: DeliveryStatusUpdate, nowMs: number): Promise<RecordStatusResult> {
    const detail = update.detail ? ', deliveryStatusDetail = :detail' : '';
    const providerId = update.providerMessageId ? ', providerMessageId = if_not_exists(providerMessageId, :providerId)' : '';
    const recorded = await this.conditionalUpdate({
      Key: ledgerItemKey(key),
      // Later event time wins; at equal time the later stage (higher rank) wins. A duplicate fails both.
      UpdateExpression:
        'SET deliveryStatus = :status, deliveryStatusAt = :at, deliveryStatusRank = :rank, ' +
        `deliveryStatusSource = :source, deliveryStatusRecordedAt = :now${detail}${providerId}` +
        (update.detail ? '' : ' REMOVE deliveryStatusDetail'),
      ConditionExpression:
        'attribute_exists(#pk) AND (attribute_not_exists(deliveryStatusAt) OR deliveryStatusAt < :at ' +
        'OR (deliveryStatusAt = :at AND deliveryStatusRank < :rank))',
      ExpressionAttributeNames: { '#pk': PK },
      ExpressionAttributeValues: {
        ':status': update.status,
        ':at': update.at,
        ':rank': deliveryStatusRank(update.status),
        ':source': update.source,
        ':now': nowMs,
        ...(update.detail ? { ':detail': update.detail } : {}),
        ...(update.providerMessageId ? { ':providerId': update.providerMessageId } : {}),
      },
    });
    if (recorded) return 'recorded';
    return (await this.get(key)) ? 'superseded' : 'no-row';
  }

  async keyForSmsMessageId(smsMessageId: string): Promise<string | undefined> {
    const { name, partitionKey } = LEDGER_TABLE.smsMessageIndex;
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: name,
        KeyConditionExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': partitionKey },
        ExpressionAttributeValues: { ':id': smsMessageId },
        Limit: 1,
      }),
    );
    const key = result.Items?.[0]?.[SK];
    return key === undefined ? undefined : String(key);
  }

  async rowsForEvent(eventId: string): Promise<LedgerRow[]> {
    const rows: LedgerRow[] = [];
    let cursor: Record<string, unknown> | undefined;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          // Every key of the event starts with its event part; another event may share it (64 bits).
          KeyConditionExpression: '#pk = :partition',
          FilterExpression: 'eventId = :eventId',
          ExpressionAttributeNames: { '#pk': PK },
          ExpressionAttributeValues: { ':partition': eventPartitionKey(eventId), ':eventId': eventId },
          ConsistentRead: true,
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        }),
      );
      rows.push(...(result.Items ?? []).map(itemToRow));
      cursor = result.LastEvaluatedKey;
    } while (cursor);
    return rows;
  }

  private async conditionalUpdate(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> {
    try {
      await this.doc.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** The pending-index entry of a takeover whose claim must be discoverable; nothing when it need not be. */
function pendingShardPart(pendingShard: string | undefined): {
  readonly set: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, string>;
} {
  return pendingShard === undefined
    ? { set: '', names: {}, values: {} }
    : { set: ', #shard = :shard', names: { '#shard': LEDGER_TABLE.pendingIndex.partitionKey }, values: { ':shard': pendingShard } };
}
