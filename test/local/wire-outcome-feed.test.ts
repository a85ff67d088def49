import { describe, expect, it } from 'vitest';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { wireFaults } from '../../local/aws/wire-fault-plan';
import { outcomeFeedHolds } from '../../local/outcome-feed-check';
import { runWireSimulation, wireRunHolds } from '../../local/wire-simulation';
import { formatWireReport } from '../../local/wire-simulation-report';

describe('simulate --wire: the outcome feed under the publisher\'s faults', () => {
  it(
    'the publisher killed before and after PutEvents and entries failed: every state change reaches the bus, every copy shares its outcomeId and is explained',
    async () => {
      const report = await runWireSimulation({
        events: 60,
        seed: 4,
        faults: wireFaults(0.02),
        outcomeFaults: { killBeforePutEvents: 0.25, killAfterPutEvents: 0.25, failedEntry: 0.1 },
      });
      const feed = report.outcomeFeed;
      expect(feed.injected.killBeforePutEvents).toBeGreaterThan(0);
      expect(feed.injected.killAfterPutEvents).toBeGreaterThan(0);
      expect(feed.injected.failedEntry).toBeGreaterThan(0);
      expect(feed.stateChanges).toBeGreaterThan(30);
      expect(feed.missing, JSON.stringify(feed.examples)).toBe(0);
      expect(feed.duplicates).toBeGreaterThan(0);
      expect(feed.duplicatesExplained.killedAfterPutEvents + feed.duplicatesExplained.batchHandedBack).toBe(feed.duplicates);
      expect(feed.unexplainedDuplicates).toBe(0);
      expect(feed.unexpected).toBe(0);
      expect(feed.events).toBe(feed.stateChanges + feed.duplicates);
      expect(outcomeFeedHolds(feed)).toBe(true);
      expect(formatWireReport(report)).toContain('OUTCOME FEED HOLDS');
    },
    240_000,
  );

  it(
    'fails the run (simulate --wire exits 1) when a state change has no event: a publisher that drops one record of a batch',
    async () => {
      let dropped = false;
      const report = await runWireSimulation({
        events: 30,
        seed: 5,
        faults: wireFaults(0),
        outcomeFaults: { killBeforePutEvents: 0, killAfterPutEvents: 0, failedEntry: 0 },
        // The deliberate defect: the first settled row's record never reaches the publisher, and its batch is acknowledged.
        wrapOutcomePublisher: (publisher) => (event, context) => {
          const settled = event.Records.findIndex((r) => r.dynamodb?.OldImage?.state?.S === 'PENDING');
          if (dropped || settled < 0) return publisher(event, context);
          dropped = true;
          const records = event.Records.filter((_, i) => i !== settled);
          return publisher({ Records: records } satisfies DynamoDBStreamEvent, context);
        },
      });
      expect(dropped).toBe(true);
      expect(report.verdict.lost).toBe(0);
      expect(report.outcomeFeed.missing).toBe(1);
      expect(report.outcomeFeed.examples.missing).toHaveLength(1);
      // The CLI's exit code is wireRunHolds: 0 when it holds, 1 when not (cli/simulate-command.ts).
      expect(wireRunHolds(report)).toBe(false);
      expect(formatWireReport(report)).toContain('OUTCOME FEED BROKEN: 1 missing');
    },
    240_000,
  );
});
