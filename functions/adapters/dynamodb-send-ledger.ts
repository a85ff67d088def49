import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Claim, LedgerRow } from '../core/ledger/ledger-record';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';
import type { ClaimResult, Release, SendLedger, TakeoverFields, TerminalWrite, UnconfirmedClaim } from '../core/ledger/send-ledger';
import { LedgerExpression } from './ledger-expression';
import { itemToRow, rowToItem } from './ledger-item';
import type { LedgerTableClient } from './ledger-table-client';

/**
 * The send ledger on DynamoDB. Every write is one conditional request, fenced on the claim, and safe
 * to retry after its own success; a failed condition is an answer (`false` / the existing row).
 */
export class DynamoDbSendLedger implements SendLedger {
  constructor(private readonly table: LedgerTableClient) {}

  async claim(row: LedgerRow, nowMs: number): Promise<ClaimResult> {
    const x = new LedgerExpression();
    // Absent, expired but not yet deleted by TTL, or exactly the row this request wrote (an SDK
    // retry after a lost response). Not merely "ours": a late copy of this request arriving
    // after our outcome or release must not put a settled row back to PENDING.
    const condition =
      `attribute_not_exists(${x.name(LEDGER_TABLE.partitionKey)}) OR ${x.name('expiresAt')} <= ${x.value('nowSeconds', Math.floor(nowMs / 1000))} OR ` +
      `(${x.is('ownerToken', 'owner', row.ownerToken)} AND ${x.is('state', 'pending', 'PENDING')} AND ` +
      `${x.is('claimVersion', 'version', row.claimVersion)} AND ${x.is('leaseExpiresAt', 'lease', row.leaseExpiresAt)})`;
    try {
      await this.table.doc.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: rowToItem(row),
          ConditionExpression: condition,
          ...x.attributes(),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // AWS and DynamoDB Local return the item; servers that do not (dynalite) cost one GetItem.
      const existing = error.Item ? itemToRow(unmarshall(error.Item)) : await this.table.get(row.key);
      return { claimed: false, existing };
    }
  }

  async takeOver(key: string, f: TakeoverFields): Promise<boolean> {
    const x = new LedgerExpression();
    const update =
      `SET ${x.is('claimVersion', 'version', f.claimVersion)}, ${x.is('ownerToken', 'owner', f.ownerToken)}, ` +
      `${x.is('claimedAt', 'now', f.claimedAt)}, ${x.is('leaseExpiresAt', 'lease', f.leaseExpiresAt)}, ` +
      `${x.is('attempts', 'attempts', f.attempts)}, ${x.is('updatedAt', 'now', f.claimedAt)}, ${x.is('expiresAt', 'expiresAt', f.expiresAt)}` +
      (f.lastAmbiguousAt !== undefined ? `, ${x.is('lastAmbiguousAt', 'since', f.lastAmbiguousAt)}` : '') +
      discoverableSet(x, f) +
      ` REMOVE ${x.name('lastRelease')}`;
    // The old claim, or exactly this takeover already applied (an SDK retry after a lost response);
    // the lease tells a late copy of this request, arriving after our release, from a retry.
    const condition =
      `${x.is('state', 'pending', 'PENDING')} AND (${x.is('claimVersion', 'expected', f.expectedClaimVersion)} OR ` +
      `(${x.is('claimVersion', 'version', f.claimVersion)} AND ${x.is('ownerToken', 'owner', f.ownerToken)} AND ${x.is('leaseExpiresAt', 'lease', f.leaseExpiresAt)}))`;
    return this.table.conditionalUpdate(key, update, { expression: x, condition });
  }

  async complete(claim: Claim, terminal: TerminalWrite, nowMs: number, expiresAt: number): Promise<boolean> {
    const x = new LedgerExpression();
    const detail =
      terminal.state === 'SENT'
        ? x.is('providerMessageId', 'detail', terminal.providerMessageId)
        : x.is('failureReason', 'detail', terminal.state === 'SUPPRESSED' ? terminal.suppression.detail : terminal.reason);
    const smsMessageId = terminal.state === 'SENT' ? terminal.smsMessageId : undefined;
    // The stored message (address, content) is only needed while the reclaimer may have to send it.
    const update =
      `SET ${x.is('state', 'state', terminal.state)}, ${x.is('updatedAt', 'now', nowMs)}, ${x.is('resolvedAt', 'now', nowMs)}, ` +
      `${x.is('expiresAt', 'expiresAt', expiresAt)}, ${detail}` +
      (smsMessageId ? `, ${x.is(LEDGER_TABLE.smsMessageIndex.partitionKey, 'smsMessageId', smsMessageId)}` : '') +
      (terminal.state === 'SUPPRESSED' ? `, ${x.is('suppressionReason', 'suppression', terminal.suppression.reason)}` : '') +
      ` REMOVE ${x.name(LEDGER_TABLE.pendingIndex.partitionKey)}, ${x.name('lastRelease')}, ${x.name('request')}`;
    const condition = `${x.is('ownerToken', 'owner', claim.ownerToken)} AND ${x.is('claimVersion', 'version', claim.claimVersion)}`;
    return this.table.conditionalUpdate(claim.key, update, { expression: x, condition });
  }

  async release(claim: Claim, release: Release, nowMs: number): Promise<boolean> {
    const x = new LedgerExpression();
    const update =
      `SET ${x.is('leaseExpiresAt', 'now', nowMs)}, ${x.is('updatedAt', 'now', nowMs)}, ${x.is('lastRelease', 'reason', release.reason)}, ` +
      `${x.is('failureReason', 'detail', release.detail)}` +
      (release.lastAmbiguousAt !== undefined ? `, ${x.is('lastAmbiguousAt', 'since', release.lastAmbiguousAt)}` : '') +
      ambiguityStreakUpdate(x, release.ambiguityStreak);
    const condition =
      `${x.is('ownerToken', 'owner', claim.ownerToken)} AND ${x.is('claimVersion', 'version', claim.claimVersion)} AND ${x.is('state', 'pending', 'PENDING')}`;
    return this.table.conditionalUpdate(claim.key, update, { expression: x, condition });
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
    const x = new LedgerExpression();
    // The claim never happened, or it is still exactly ours: either way the row is now released.
    const condition =
      `attribute_not_exists(${x.name(LEDGER_TABLE.partitionKey)}) OR ${x.name('expiresAt')} <= ${x.value('nowSeconds', Math.floor(nowMs / 1000))} OR ` +
      `(${x.is('ownerToken', 'owner', row.ownerToken)} AND ${x.is('claimVersion', 'version', row.claimVersion)} AND ${x.is('state', 'pending', 'PENDING')})`;
    return this.table.conditionalPut(rowToItem(released), { expression: x, condition });
  }

  /** The takeover and its release in one write: whether or not the takeover executed, the row ends released at its version. */
  private async releaseUnconfirmedTakeover(key: string, f: TakeoverFields, release: Release, nowMs: number): Promise<boolean> {
    const x = new LedgerExpression();
    const since = release.lastAmbiguousAt ?? f.lastAmbiguousAt;
    const update =
      `SET ${x.is('claimVersion', 'version', f.claimVersion)}, ${x.is('ownerToken', 'owner', f.ownerToken)}, ` +
      `${x.is('claimedAt', 'claimedAt', f.claimedAt)}, ${x.is('leaseExpiresAt', 'now', nowMs)}, ${x.is('attempts', 'attempts', f.attempts)}, ` +
      `${x.is('updatedAt', 'now', nowMs)}, ${x.is('expiresAt', 'expiresAt', f.expiresAt)}, ${x.is('lastRelease', 'reason', release.reason)}, ` +
      `${x.is('failureReason', 'detail', release.detail)}` +
      (since !== undefined ? `, ${x.is('lastAmbiguousAt', 'since', since)}` : '') +
      discoverableSet(x, f);
    const condition =
      `${x.is('state', 'pending', 'PENDING')} AND (${x.is('claimVersion', 'expected', f.expectedClaimVersion)} OR ` +
      `(${x.is('claimVersion', 'version', f.claimVersion)} AND ${x.is('ownerToken', 'owner', f.ownerToken)}))`;
    return this.table.conditionalUpdate(key, update, { expression: x, condition });
  }

  get(key: string): Promise<LedgerRow | undefined> {
    return this.table.get(key);
  }
}

/** The end of a release's SET clause (and its REMOVE) for the row's ambiguity streak; nothing when the release leaves it. */
function ambiguityStreakUpdate(x: LedgerExpression, streak: Release['ambiguityStreak']): string {
  if (streak === undefined) return '';
  return streak === 'reset' ? ` REMOVE ${x.name('ambiguityStreak')}` : `, ${x.is('ambiguityStreak', 'streak', streak)}`;
}

/**
 * The pending-index entry of a takeover whose claim must be discoverable, and the packed message the reclaimer
 * then needs when the row keeps none; nothing when the takeover needs neither.
 */
function discoverableSet(x: LedgerExpression, { pendingShard, request }: Pick<TakeoverFields, 'pendingShard' | 'request'>): string {
  return (
    (pendingShard === undefined ? '' : `, ${x.is(LEDGER_TABLE.pendingIndex.partitionKey, 'shard', pendingShard)}`) +
    (request === undefined ? '' : `, ${x.is('request', 'request', request)}`)
  );
}
