import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OutcomeEventDetail } from '../../functions/core/outcome/outcome-event';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import { runLocal } from '../../local/local-runner';
import { checkOutcomeFeed, outcomeFeedHolds } from '../../local/outcome-feed-check';
import type { RunOutcomeFeed } from '../../local/run-outcome-feed';
import type { LocalAws } from '../../local/aws/local-aws';
import { LOCAL_TABLE_NAME } from '../../local/local-table';
import { scanLedger } from '../../local/senders/this-sender';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { expectOutcomeEventSchema } from '../support/outcome-event-schema';
import { EXAMPLE_RUN } from '../support/example-run';

describe('npm start\'s outcome feed (the real publisher on the local stream, onto the local EventBridge)', () => {
  it('holds one event per producer-visible state change of the run, shows them newest first, filters by event id and state, and writes them as JSON lines', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    const file = join(mkdtempSync(join(tmpdir(), 'outcome-feed-')), 'feed.jsonl');
    const printed: string[] = [];
    let feed: RunOutcomeFeed | undefined;
    let aws: LocalAws | undefined;
    let rows: LedgerRow[] = [];
    const pages: Record<string, string> = {};
    const summary = await runLocal({
      lines,
      ...EXAMPLE_RUN,
      outcomeFeedFile: file,
      out: (l) => printed.push(l),
      err: () => undefined,
      onStarted: (started, _lanes, _ledger, outcomeFeed) => {
        aws = started;
        feed = outcomeFeed;
      },
      beforeStop: async () => {
        rows = [...(await scanLedger({ adminClient: aws!.dynamo.client() }, LOCAL_TABLE_NAME)).values()];
        for (const query of ['', '?state=FAILED', '?eventId=ord-1001-shipped', '?eventId=ord-1001-shipped&state=DELIVERED']) pages[query] = await (await fetch(`${feed!.page.url}${query}`)).text();
      },
    });
    const events = feed!.feed.events();
    const details = events.map((e) => e.detail);
    expectOutcomeEventSchema(details);

    // One event per state change: every producer-visible change the ledger's stream holds (each of the run's
    // writes, before the mapping's filter) has exactly one event, nothing failed so nothing was put twice.
    const check = checkOutcomeFeed({
      streamRecords: feed!.stream.all().map((s) => s.record),
      finalRows: rows,
      events,
      killedAfterCalls: new Set(),
      invocationOfCall: feed!.feed.invocationOfCall,
      invocationResults: feed!.feed.invocationResults(),
      parkedBatches: feed!.feed.parked().length,
    });
    expect(check).toMatchObject({ missing: 0, duplicates: 0, unexpected: 0 });
    expect(outcomeFeedHolds(check)).toBe(true);
    expect(events).toHaveLength(check.stateChanges);
    // Every message's final state, as the ledger holds it, is the last event of its key; every row has one.
    expect(new Set(details.map((d) => d.key))).toEqual(new Set(rows.map((r) => r.key)));
    const last = new Map<string, OutcomeEventDetail>();
    for (const d of details) if ((last.get(d.key)?.sequence ?? '') < d.sequence) last.set(d.key, d);
    for (const row of rows.filter((r) => r.state !== 'SENT')) expect(last.get(row.key)?.state, row.key).toBe(row.state);
    // The run's own counts: 3 FAILED (buyer-60's disabled push among them), 2 SUPPRESSED (one of them SENT first: SES
    // took member-3's offer, then refused it).
    expect(details.filter((d) => d.state === 'FAILED')).toHaveLength(3);
    expect(details.filter((d) => d.state === 'SUPPRESSED')).toHaveLength(2);
    expect(details.filter((d) => d.state === 'SENT').length).toBe(summary.sent + 1);
    expect(summary.outcomeFeed).toEqual({ events: events.length, file });

    // The file: the same events, one JSON line each, in the order the bus took them.
    const written = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { detail: OutcomeEventDetail });
    expect(written.map((w) => w.detail)).toEqual(details);
    expect(printed.some((l) => l.includes(feed!.page.url) && l.includes(file))).toBe(true);

    // The page: says what it shows, newest first, narrowed by state and by event id.
    const outcomeIds = (html: string) => [...html.matchAll(/data-outcome-id="([^"]+)"/g)].map((m) => m[1]);
    expect(pages['']).toContain('Outcome feed: what producers hear back');
    expect(pages['']).toContain(`Showing ${events.length} of ${events.length} events`);
    expect(outcomeIds(pages['']!)).toEqual(details.map((d) => d.outcomeId).reverse());
    expect(outcomeIds(pages['?state=FAILED']!)).toEqual(details.filter((d) => d.state === 'FAILED').map((d) => d.outcomeId).reverse());
    const order1001 = details.filter((d) => d.eventId === 'ord-1001-shipped');
    expect(order1001.length).toBeGreaterThan(0);
    expect(outcomeIds(pages['?eventId=ord-1001-shipped']!)).toEqual(order1001.map((d) => d.outcomeId).reverse());
    expect(outcomeIds(pages['?eventId=ord-1001-shipped&state=DELIVERED']!)).toEqual(order1001.filter((d) => d.state === 'DELIVERED').map((d) => d.outcomeId).reverse());
    // No address, number or content on the page (the events carry none).
    expect(pages['']).not.toMatch(/@example\.com|\+1415/);
  }, 120_000);
});
