import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';

/** Settings of the send ledger table. */
export interface LedgerTableOptions {
  /**
   * Deletion protection (the table is RETAINed on stack deletion either way).
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Customer-managed KMS key of the table.
   * @default - DynamoDB's AWS managed key
   */
  readonly encryptionKey?: kms.IKey;
}

/**
 * The send ledger, `Ledger` in `scope`: keys, TTL and indexes exactly as `LEDGER_TABLE` defines them (the
 * handlers and the local runner read the same definition), on-demand, with point-in-time recovery, retained, and a
 * stream of new and old images for the outcome feed.
 */
export function createLedgerTable(scope: Construct, options: LedgerTableOptions = {}): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Ledger', {
    partitionKey: { name: LEDGER_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: LEDGER_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: LEDGER_TABLE.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: options.deletionProtection ?? true,
    // The outcome feed (lib/notifier-outcomes.ts): every write's old and new item, read by the publisher. Stream
    // reads by a Lambda trigger are not billed, and the writes cost what they cost without it.
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    removalPolicy: RemovalPolicy.RETAIN,
    ...(options.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: options.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
  });
  table.addGlobalSecondaryIndex({
    indexName: LEDGER_TABLE.pendingIndex.name,
    partitionKey: { name: LEDGER_TABLE.pendingIndex.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: LEDGER_TABLE.pendingIndex.sortKey, type: dynamodb.AttributeType.NUMBER },
    projectionType: dynamodb.ProjectionType[LEDGER_TABLE.pendingIndex.projection],
  });
  table.addGlobalSecondaryIndex({
    indexName: LEDGER_TABLE.smsMessageIndex.name,
    partitionKey: { name: LEDGER_TABLE.smsMessageIndex.partitionKey, type: dynamodb.AttributeType.STRING },
    projectionType: dynamodb.ProjectionType[LEDGER_TABLE.smsMessageIndex.projection],
  });
  return table;
}
