import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { rowToItem } from '../../functions/adapters/ledger-item';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';

export const T0 = Date.parse('2026-11-29T12:00:00Z');

/** A claimed row of key `key` (64 hex), as the sender writes it. */
export function claimRow(key: string, patch: Partial<LedgerRow> = {}): LedgerRow {
  const claim = newClaimRow({
    subject: { key, eventId: `evt-${key.slice(0, 4)}`, recipientId: 'buyer-17', channel: 'email', templateId: 'order-shipped', messageClass: 'transactional', occurredAt: '2026-11-29T11:59:00Z' },
    ownerToken: 'owner-1',
    nowMs: T0,
    timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
  });
  return { ...claim, request: { channel: 'email', to: 'buyer@example.com', subject: 'Your order', text: 'shipped' }, ...patch };
}

export function sentRow(key: string, patch: Partial<LedgerRow> = {}): LedgerRow {
  const { request: _request, pendingShard: _shard, ...rest } = claimRow(key);
  return { ...rest, state: 'SENT', providerMessageId: `ses-${key.slice(0, 6)}`, resolvedAt: T0 + 100, updatedAt: T0 + 100, ...patch };
}

/** A key whose event part is 16 hex characters, as every message's is. */
export function keyOf(n: number): string {
  return n.toString(16).padStart(64, '0');
}

type StreamImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

let sequence = 1000;

/** A stream record of an item's write, in the Lambda event's shape (DynamoDB JSON images, a numeric sequence number). */
export function streamRecord(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): DynamoDBRecord {
  sequence += 1;
  const image = (item: Record<string, unknown> | undefined): StreamImage | undefined =>
    item ? (marshall(item, { removeUndefinedValues: true }) as unknown as StreamImage) : undefined;
  const keys = after ?? before!;
  return {
    eventID: `event-${sequence}`,
    eventName: before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      Keys: image({ pk: keys.pk, sk: keys.sk }),
      ...(after ? { NewImage: image(after) } : {}),
      ...(before ? { OldImage: image(before) } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** A ledger row's write as a stream record. */
export function rowWrite(before: LedgerRow | undefined, after: LedgerRow | undefined): DynamoDBRecord {
  return streamRecord(before && rowToItem(before), after && rowToItem(after));
}

export function batchOf(records: DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records: records };
}
