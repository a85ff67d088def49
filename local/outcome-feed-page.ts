import { createServer } from 'node:http';
import { keyPrefix } from '../functions/core/event/idempotency-key';
import { OUTCOME_STATES } from '../functions/core/outcome/outcome-state';
import { escapeXml } from './aws/sns-query-protocol';
import { closeServer, listenOnLoopback } from './aws/loopback-http';
import type { FeedEvent } from './outcome-feed';

/** The local run's outcome feed page: its address, and how to stop it. */
export interface OutcomeFeedPage {
  readonly url: string;
  stop(): Promise<void>;
}

/** What the page is narrowed to (the query string's `eventId` and `state`). */
export interface OutcomeFeedFilter {
  /** @default every event id */
  readonly eventId?: string;
  /** @default every state */
  readonly state?: string;
}

/**
 * The outcome events a producer's rule would receive, as a page beside the mailbox, the SMS/push page and the
 * ledger page: newest first, narrowed by `?eventId=` and `?state=`. Read afresh on every load. The events carry
 * no address, number or content, and neither does the page.
 */
export async function startOutcomeFeedPage(options: { readonly events: () => readonly FeedEvent[]; readonly feedFile?: string }): Promise<OutcomeFeedPage> {
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    const filter = { ...(query.get('eventId') ? { eventId: query.get('eventId')! } : {}), ...(query.get('state') ? { state: query.get('state')! } : {}) };
    const html = outcomeFeedPageHtml(options.events(), filter, options.feedFile);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
    res.end(html);
  });
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/`, stop: () => closeServer(server) };
}

/** The events `filter` lets through, newest (last taken) first. Pure. */
export function filterFeed(events: readonly FeedEvent[], filter: OutcomeFeedFilter): FeedEvent[] {
  return events.filter((e) => (filter.eventId === undefined || e.detail.eventId === filter.eventId) && (filter.state === undefined || e.detail.state === filter.state)).reverse();
}

/** The page for these events. Pure. */
export function outcomeFeedPageHtml(events: readonly FeedEvent[], filter: OutcomeFeedFilter, feedFile?: string): string {
  const shown = filterFeed(events, filter);
  const cell = (text: string) => `<td>${escapeXml(text)}</td>`;
  const rows = shown
    .map(({ detail: d, takenAt }) =>
      `<tr data-outcome-id="${escapeXml(d.outcomeId)}">${cell(takenAt)}${cell(d.state)}${cell(d.reason ?? '-')}${cell(d.eventId)}${cell(d.recipientId)}${cell(d.replaces ? `${d.channel} (fallback, replaces ${keyPrefix(d.replaces)})` : d.channel)}${cell(d.templateId)}` +
      `${cell(d.messageClass)}${cell(d.lane ?? '-')}${cell(keyPrefix(d.key))}${cell(d.stateAt)}${cell(d.sequence)}${cell(d.outcomeId.slice(0, 12))}` +
      `<td><details><summary>detail</summary><pre>${escapeXml(JSON.stringify(d, null, 2))}</pre></details></td></tr>`,
    )
    .join('\n');
  const narrowed = [filter.eventId ? `event ${filter.eventId}` : undefined, filter.state ? `state ${filter.state}` : undefined].filter(Boolean).join(', ');
  const states = ['', ...OUTCOME_STATES].map((s) => `<option value="${s}"${s === (filter.state ?? '') ? ' selected' : ''}>${s || 'every state'}</option>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Outcome feed: ${shown.length} of ${events.length} events</title></head><body>
<h1>Outcome feed: what producers hear back</h1>
<p>Every event the outcome publisher put on the stack's event bus during this run, newest first: one per change of a message's state that a producer acts on (SENT, DELIVERED, BOUNCED, COMPLAINED, FAILED, SUPPRESSED, UNKNOWN), read from the ledger table's stream as in AWS. A producer subscribes with an EventBridge rule (docs/outcome-events.md). At least once: a copy of an event has the same outcomeId. Showing ${shown.length} of ${events.length} events${narrowed ? ` (${escapeXml(narrowed)})` : ''}${feedFile ? `; the whole feed is also in ${escapeXml(feedFile)}, one JSON line per event` : ''}. Reload to read it again.</p>
<form method="get"><label>event id <input name="eventId" value="${escapeXml(filter.eventId ?? '')}"></label> <label>state <select name="state">${states}</select></label> <button>show</button> <a href="/">all</a></form>
<table border="1" cellpadding="4"><thead><tr><th>taken by the bus</th><th>state</th><th>reason</th><th>event</th><th>recipient</th><th>channel</th><th>template</th><th>class</th><th>lane</th><th>key</th><th>state at</th><th>sequence</th><th>outcomeId</th><th>the event's detail</th></tr></thead>
<tbody>${rows}</tbody></table>
</body></html>`;
}
