import type { DynamoDBRecord } from 'aws-lambda';
import { ledgerRowOfImage, type StreamImage } from '../functions/adapters/ledger-stream-image';
import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import { outcomeEventDetail } from '../functions/core/outcome/outcome-event';
import { outcomeChange, visibleOutcome } from '../functions/core/outcome/outcome-state';
import type { StreamInvocationResult } from './aws/local-stream-consumer';
import type { FeedEvent } from './outcome-feed';

/** One state change a producer must hear of. */
export interface ExpectedOutcome {
  readonly key: string;
  readonly state: string;
  readonly outcomeId: string;
}

/** What the feed of a run is judged on. */
export interface OutcomeFeedCheck {
  /** Producer-visible state changes the ledger's stream holds (every write, before any filter). */
  readonly stateChanges: number;
  /** Events the bus took, copies included. */
  readonly events: number;
  /** State changes with no event on the bus, and rows whose final visible state has none: must be 0. */
  readonly missing: number;
  /** Copies beyond the first of one state change (they share its outcomeId; consumers drop them by it). */
  readonly duplicates: number;
  /** Why each copy was put again. */
  readonly duplicatesExplained: { readonly killedAfterPutEvents: number; readonly batchHandedBack: number };
  /** Copies no kill after PutEvents and no handed-back or failed batch explains: must be 0. */
  readonly unexplainedDuplicates: number;
  /** Events whose outcomeId no state change of the stream has (an event for nothing): must be 0. */
  readonly unexpected: number;
  /** Batches the mapping gave up on (their place in the on-failure queue); their records may be among the missing. */
  readonly parkedBatches: number;
  /** Up to 10 of each, for a reader to look up. */
  readonly examples: { readonly missing: readonly string[]; readonly unexplained: readonly string[]; readonly unexpected: readonly string[] };
}

/** Every producer-visible state change in these stream records, as the core defines one (outcome-state.ts). */
export function expectedOutcomes(records: readonly DynamoDBRecord[]): ExpectedOutcome[] {
  const expected: ExpectedOutcome[] = [];
  for (const record of records) {
    if (record.eventName === 'REMOVE') continue;
    const after = ledgerRowOfImage(record.dynamodb?.NewImage as StreamImage | undefined);
    if (after === undefined) continue;
    const change = outcomeChange(ledgerRowOfImage(record.dynamodb?.OldImage as StreamImage | undefined), after);
    if (change) expected.push({ key: after.key, state: change.state, outcomeId: outcomeEventDetail(after, change).outcomeId });
  }
  return expected;
}

/**
 * Judges a run's outcome feed: every producer-visible state change the ledger's stream holds (read from all its
 * records, so a filter pattern that lets one through too few is caught) has at least one event on the bus, and
 * every row's final visible state has one; each copy beyond the first is explained by the publisher killed after
 * its PutEvents executed, or by its batch handed back (partial batch response) or failed after it was put.
 */
export function checkOutcomeFeed(input: {
  readonly streamRecords: readonly DynamoDBRecord[];
  readonly finalRows: Iterable<LedgerRow>;
  readonly events: readonly FeedEvent[];
  /** PutEvents calls after which the publisher was killed (their entries were on the bus). */
  readonly killedAfterCalls: ReadonlySet<number>;
  /** The publisher invocation that made a call. */
  readonly invocationOfCall: (call: number) => number | undefined;
  readonly invocationResults: readonly StreamInvocationResult[];
  readonly parkedBatches: number;
}): OutcomeFeedCheck {
  const expected = expectedOutcomes(input.streamRecords);
  const expectedIds = new Set(expected.map((e) => e.outcomeId));
  const copies = new Map<string, FeedEvent[]>();
  for (const event of input.events) copies.set(event.detail.outcomeId, [...(copies.get(event.detail.outcomeId) ?? []), event]);
  const missing = expected.filter((e) => !copies.has(e.outcomeId)).map((e) => `${e.key} ${e.state}`);
  const onBus = new Set(input.events.map((e) => `${e.detail.key} ${e.detail.state}`));
  for (const row of input.finalRows) {
    const visible = visibleOutcome(row);
    const change = `${row.key} ${visible?.state ?? ''}`;
    if (visible && !onBus.has(change) && !missing.includes(change)) missing.push(change);
  }
  const unacknowledged = new Set(input.invocationResults.filter((r) => r.outcome.kind !== 'acknowledged').map((r) => r.invocation));
  let killedAfterPutEvents = 0;
  let batchHandedBack = 0;
  const unexplained: string[] = [];
  for (const [outcomeId, events] of copies) {
    for (let i = 1; i < events.length; i += 1) {
      const earlier = events.slice(0, i);
      if (earlier.some((e) => input.killedAfterCalls.has(e.call))) killedAfterPutEvents += 1;
      else if (earlier.some((e) => unacknowledged.has(input.invocationOfCall(e.call) ?? -1))) batchHandedBack += 1;
      else unexplained.push(outcomeId);
    }
  }
  const unexpected = [...copies.keys()].filter((id) => !expectedIds.has(id));
  return {
    stateChanges: expected.length,
    events: input.events.length,
    missing: missing.length,
    duplicates: input.events.length - copies.size,
    duplicatesExplained: { killedAfterPutEvents, batchHandedBack },
    unexplainedDuplicates: unexplained.length,
    unexpected: unexpected.length,
    parkedBatches: input.parkedBatches,
    examples: { missing: missing.slice(0, 10), unexplained: unexplained.slice(0, 10), unexpected: unexpected.slice(0, 10) },
  };
}

/** The feed kept its promise: nothing missing, every copy explained, no event for nothing. */
export function outcomeFeedHolds(check: Pick<OutcomeFeedCheck, 'missing' | 'unexplainedDuplicates' | 'unexpected'>): boolean {
  return check.missing === 0 && check.unexplainedDuplicates === 0 && check.unexpected === 0;
}
