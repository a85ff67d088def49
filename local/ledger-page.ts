import { createServer } from 'node:http';
import { ledgerRowView, ledgerStateLine, renderLedgerRow } from './ledger-render';
import { keyPrefix } from '../functions/core/event/idempotency-key';
import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import { escapeXml } from './aws/sns-query-protocol';
import { closeServer, listenOnLoopback } from './aws/loopback-http';

/** The local run's ledger page: its address, and how to stop it. */
export interface LedgerPage {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * The ledger's decisions as a page, beside the mailbox and the SMS/push page: one line per message with its
 * state and reason as `notifier ledger show` words them, and the whole `ledger show` text of the row under it.
 * Read afresh on every load. Never an address (masked, as `ledger show` does) nor content.
 */
export async function startLedgerPage(readRows: () => Promise<Iterable<LedgerRow>>): Promise<LedgerPage> {
  const server = createServer((req, res) => {
    void readRows().then(
      (rows) => {
        const html = ledgerPageHtml([...rows]);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
        res.end(html);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`could not read the ledger: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  });
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/`, stop: () => closeServer(server) };
}

/** The page for these rows, ordered by event, recipient and channel. Pure. */
export function ledgerPageHtml(rows: readonly LedgerRow[]): string {
  const sorted = [...rows].sort((a, b) => `${a.eventId}\0${a.recipientId}\0${a.channel}`.localeCompare(`${b.eventId}\0${b.recipientId}\0${b.channel}`));
  const cell = (text: string) => `<td>${escapeXml(text)}</td>`;
  const lines = sorted
    .map((row) => {
      const view = ledgerRowView(row);
      return (
        `<tr>${cell(keyPrefix(row.key))}${cell(row.eventId)}${cell(row.recipientId)}${cell(view.replaces ? `${row.channel} (fallback, replaces ${keyPrefix(view.replaces)})` : row.channel)}${cell(row.templateId)}` +
        `${cell(ledgerStateLine(view))}${cell(view.failureReason ?? '-')}` +
        `<td><details><summary>ledger show</summary><pre>${escapeXml(renderLedgerRow(row))}</pre></details></td></tr>`
      );
    })
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Local ledger: ${rows.length} messages</title></head><body>
<h1>Local ledger: what the sender decided for each message</h1>
<p>One row per message (recipient x channel) of the send ledger, in its state now: SENT, FAILED, UNKNOWN, SUPPRESSED or PENDING, with the reason, as <code>npx notifier ledger show &lt;key&gt;</code> gives them. The mailbox and the SMS/push page show what the providers received; this page shows what the ledger decided, including the messages no provider saw. Reload to read the ledger again.</p>
<table border="1" cellpadding="4"><thead><tr><th>key (first ${keyPrefix('0'.repeat(64)).length} characters)</th><th>event</th><th>recipient</th><th>channel</th><th>template</th><th>state</th><th>reason</th><th>the row</th></tr></thead>
<tbody>${lines}</tbody></table>
</body></html>`;
}
