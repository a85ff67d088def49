import { describe, expect, it } from 'vitest';
import type { OutcomeEventDetail } from '../../functions/core/outcome/outcome-event';
import { useTestLedger } from '../support/ledger-server';
import { changesOnBus, expectedChanges, sendAndDeliver, startOutcomeFeed } from './outcome-feed-rig';

const db = useTestLedger();

/** Every state change is one outcomeId; every copy of it on the bus carries the same one. */
function expectDuplicatesShareIds(details: readonly OutcomeEventDetail[]): void {
  const idsByChange = new Map<string, Set<string>>();
  for (const d of details) idsByChange.set(`${d.key} ${d.state}`, (idsByChange.get(`${d.key} ${d.state}`) ?? new Set()).add(d.outcomeId));
  for (const [change, ids] of idsByChange) expect(ids.size, change).toBe(1);
  expect(new Set(details.map((d) => d.outcomeId)).size).toBe(idsByChange.size);
}

describe('the outcome feed, from the ledger write to the bus', () => {
  it('puts every state change on the bus, once each when nothing fails, and nothing for claims', async () => {
    const feed = await startOutcomeFeed(db);
    try {
      const keys = [await sendAndDeliver(feed.ledger), await sendAndDeliver(feed.ledger), await sendAndDeliver(feed.ledger)];
      await feed.mapping.drain();
      expect(changesOnBus(feed.details())).toEqual(expectedChanges(keys));
      expect(feed.details()).toHaveLength(6);
      // The claims were filtered out before the publisher: each invocation held settled rows only.
      const states = feed.mapping.invocations().flatMap((e) => e.Records.map((r) => r.dynamodb?.NewImage?.state?.S));
      expect(states).not.toContain('PENDING');
    } finally {
      await feed.stop();
    }
  });

  it('the publisher killed after the ledger write and before PutEvents: every state change still reaches the bus', async () => {
    const feed = await startOutcomeFeed(db, { callFate: (_, call) => (call === 0 ? 'kill-before' : 'answer') });
    try {
      const keys = [await sendAndDeliver(feed.ledger), await sendAndDeliver(feed.ledger)];
      await feed.mapping.drain();
      expect(feed.mapping.invocations().length).toBeGreaterThan(1);
      expect(changesOnBus(feed.details())).toEqual(expectedChanges(keys));
      expectDuplicatesShareIds(feed.details());
    } finally {
      await feed.stop();
    }
  });

  it('the publisher killed after PutEvents and before its batch is acknowledged: the batch comes again, the copies share their outcomeId', async () => {
    const feed = await startOutcomeFeed(db, { callFate: (_, call) => (call === 0 ? 'kill-after' : 'answer') });
    try {
      const keys = [await sendAndDeliver(feed.ledger), await sendAndDeliver(feed.ledger)];
      await feed.mapping.drain();
      expect(changesOnBus(feed.details())).toEqual(expectedChanges(keys));
      // The killed call's entries are on the bus and were put again.
      expect(feed.details().length).toBeGreaterThan(keys.length * 2);
      expectDuplicatesShareIds(feed.details());
    } finally {
      await feed.stop();
    }
  });

  it('PutEvents failing some entries: they are sent again, none lost', async () => {
    let entries = 0;
    // Every third entry fails, whatever its try: the publisher's pauses and the mapping's retries get it through.
    const feed = await startOutcomeFeed(db, { entryFate: () => (++entries % 3 === 0 ? 'ThrottlingException' : undefined) });
    try {
      const keys = await Promise.all(Array.from({ length: 8 }, () => sendAndDeliver(feed.ledger)));
      await feed.mapping.drain();
      expect(changesOnBus(feed.details())).toEqual(expectedChanges(keys));
      expect(feed.metrics.get('OutcomeEntryFailed')).toBeGreaterThan(0);
      expectDuplicatesShareIds(feed.details());
      expect(feed.mapping.parked()).toEqual([]);
    } finally {
      await feed.stop();
    }
  });
});
