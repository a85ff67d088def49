import type { DynamoDBRecord } from 'aws-lambda';
import { ledgerRowOfImage, type StreamImage } from '../adapters/ledger-stream-image';
import { outcomeEventDetail, type OutcomeEventDetail, type OutcomeEventOptions } from '../core/outcome/outcome-event';
import { outcomeChange } from '../core/outcome/outcome-state';

/** One event to put, with the place of the stream record it came from. */
export interface PendingOutcome {
  readonly recordIndex: number;
  readonly detail: OutcomeEventDetail;
}

/** What a batch of stream records holds for the bus. */
export interface BatchOutcomes {
  /** The events of the records before the first unreadable one, in record order. */
  readonly outcomes: readonly PendingOutcome[];
  /** The first record that is a message's row but no valid one: it and every later record go back to the mapping. */
  readonly firstInvalid?: { readonly recordIndex: number; readonly reason: string };
}

/**
 * The outcome events of a batch: each record's old and new image read as ledger rows and compared (a limit
 * counter, a consent record or a removal is no event). Reading stops at the first record that cannot be read:
 * the stream keeps a key's records in order, so nothing after it may be published before it is.
 */
export function outcomesOfBatch(records: readonly DynamoDBRecord[], options: OutcomeEventOptions): BatchOutcomes {
  const outcomes: PendingOutcome[] = [];
  for (const [recordIndex, record] of records.entries()) {
    try {
      if (record.eventName === 'REMOVE') continue;
      const after = ledgerRowOfImage(record.dynamodb?.NewImage as StreamImage | undefined);
      if (after === undefined) continue;
      const change = outcomeChange(ledgerRowOfImage(record.dynamodb?.OldImage as StreamImage | undefined), after);
      if (change) outcomes.push({ recordIndex, detail: outcomeEventDetail(after, change, options) });
    } catch (error) {
      return { outcomes, firstInvalid: { recordIndex, reason: error instanceof Error ? error.message : String(error) } };
    }
  }
  return { outcomes };
}
