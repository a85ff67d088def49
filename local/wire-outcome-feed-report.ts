import { outcomeFeedHolds } from './outcome-feed-check';
import { textTable } from './text-table';
import type { WireOutcomeFeedReport } from './wire-outcome-feed';

/** The outcome feed's part of the wire report: what it must hold, what was injected, the verdict line. */
export function formatWireOutcomeFeed(feed: WireOutcomeFeedReport): string {
  const pct = (rate: number) => `${Math.round(rate * 1000) / 10}%`;
  const table = textTable(
    ['outcome feed (ledger stream -> publisher -> bus)', 'value'],
    [
      ['producer-visible state changes in the ledger\'s stream', feed.stateChanges],
      ['events on the bus (copies included)', feed.events],
      ['missing: a state change, or a row\'s final state, with no event', feed.missing],
      ['duplicates (copies sharing one outcomeId; consumers drop them by it)', feed.duplicates],
      ['  put again after the publisher was killed after PutEvents', feed.duplicatesExplained.killedAfterPutEvents],
      ['  put again after their batch was handed back or failed', feed.duplicatesExplained.batchHandedBack],
      ['  unexplained', feed.unexplainedDuplicates],
      ['events for no state change', feed.unexpected],
      ['batches parked on the on-failure queue', feed.parkedBatches],
      [
        `publisher killed before PutEvents / after PutEvents (rates ${pct(feed.faults.killBeforePutEvents)} / ${pct(feed.faults.killAfterPutEvents)} per call)`,
        `${feed.injected.killBeforePutEvents} / ${feed.injected.killAfterPutEvents}`,
      ],
      [`PutEvents entries failed (rate ${pct(feed.faults.failedEntry)}) / entries the publisher counted failed (a killed call's refused retries count each entry)`, `${feed.injected.failedEntry} / ${feed.entriesFailed}`],
      ['publisher invocations', feed.publisherInvocations],
    ],
  );
  const verdict = outcomeFeedHolds(feed)
    ? 'OUTCOME FEED HOLDS: every state change reached the bus; every copy shares its outcomeId and is explained.'
    : `OUTCOME FEED BROKEN: ${feed.missing} missing, ${feed.unexplainedDuplicates} unexplained copies, ${feed.unexpected} events for nothing; examples ${JSON.stringify(feed.examples)}`;
  return `${table}\n${verdict}`;
}
