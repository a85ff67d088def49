import type { DynamoDBRecord } from 'aws-lambda';
import { ledgerRowOfImage, type StreamImage } from '../adapters/ledger-stream-image';
import { fallbackDecision } from '../core/fallback/fallback-decision';
import { MAX_FALLBACK_WITHOUT_EVIDENCE_SECONDS, DEFAULT_FALLBACK_POLICY, type MessageClassRegistry } from '../core/policy/message-class';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { outcomeChange } from '../core/outcome/outcome-state';
import { laneOfMessageClass, type LaneName } from '../core/policy/send-lanes';

/** What one stream record asks of the trigger. */
export type RecordAction =
  /** Ask the sender for the fallback of `primary`, visible after `delaySeconds` (0: its primary certainly failed). */
  | { readonly kind: 'request'; readonly primary: LedgerRow; readonly lane: LaneName; readonly delaySeconds: number }
  /** The provider says `primary` was delivered: whether its fallback went out too is read from the fallback's row. */
  | { readonly kind: 'delivered'; readonly primary: LedgerRow; readonly fallbackKey: string }
  | { readonly kind: 'nothing' };

export interface RecordReading {
  readonly messageClasses: MessageClassRegistry;
  readonly bulkClasses: readonly string[];
  readonly nowMs: number;
}

/**
 * What a ledger stream record means for a fallback. Only a row that names a next channel (`fallbackKey`) and only a
 * write a producer would hear of (outcome-state.ts: a settling, a later consent suppression, a stronger provider word)
 * is read: a claim, a takeover or a release is not the primary's end, and its settling write comes later. The sender
 * decides again when the request arrives (the row may have changed since): this only says when to ask.
 * @throws Error naming the key when a message's row is not a valid ledger row.
 */
export function actionOfRecord(record: DynamoDBRecord, reading: RecordReading): RecordAction {
  if (record.eventName === 'REMOVE') return { kind: 'nothing' };
  const after = ledgerRowOfImage(record.dynamodb?.NewImage as StreamImage | undefined);
  if (after?.fallbackKey === undefined) return { kind: 'nothing' };
  const change = outcomeChange(ledgerRowOfImage(record.dynamodb?.OldImage as StreamImage | undefined), after);
  if (change === undefined) return { kind: 'nothing' };
  const policy = reading.messageClasses.get(after.messageClass)?.fallback ?? DEFAULT_FALLBACK_POLICY;
  const decision = fallbackDecision(after, policy, reading.nowMs);
  const lane = laneOfMessageClass(after.messageClass, reading.bulkClasses);
  switch (decision.kind) {
    case 'fall-back':
      return { kind: 'request', primary: after, lane, delaySeconds: 0 };
    case 'check-at': {
      // SQS holds a message back at most 900 s (a class's window is at most that); the sender checks the clock again.
      const seconds = Math.ceil((decision.atMs - reading.nowMs) / 1000);
      return { kind: 'request', primary: after, lane, delaySeconds: Math.min(Math.max(seconds, 0), MAX_FALLBACK_WITHOUT_EVIDENCE_SECONDS) };
    }
    case 'none':
      return decision.why === 'delivered' && change.state === 'DELIVERED' ? { kind: 'delivered', primary: after, fallbackKey: after.fallbackKey } : { kind: 'nothing' };
  }
}
