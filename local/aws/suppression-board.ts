import { escapeXml } from './sns-query-protocol';

/** One message the sender suppressed, as its log line says it: identifiers and the reason, never the address. */
export interface SuppressedEntry {
  readonly at: number;
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: string;
  readonly templateId: string;
  readonly messageClass: string;
  readonly reason: string;
  readonly key: string;
}

/**
 * What the local run's sender suppressed (a limit or a destination rule: never sent, so no provider
 * saw it), shown beside what the providers got: on the SNS page and under the SES mailbox.
 */
export class SuppressionBoard {
  private readonly entries: SuppressedEntry[] = [];

  note(entry: SuppressedEntry): void {
    this.entries.push(entry);
  }

  all(): readonly SuppressedEntry[] {
    return [...this.entries];
  }

  /** An HTML section listing them (empty list: says so). */
  html(): string {
    const rows = this.entries
      .map(
        (e) =>
          `<tr><td>${new Date(e.at).toISOString()}</td><td>${escapeXml(e.channel)}</td><td>${escapeXml(e.recipientId)}</td>` +
          `<td>${escapeXml(e.eventId)}</td><td>${escapeXml(e.templateId)}</td><td>${escapeXml(e.messageClass)}</td><td>${escapeXml(e.reason)}</td><td>${escapeXml(e.key)}</td></tr>`,
      )
      .join('\n');
    return `<section id="suppressed"><h2>Suppressed or held (${this.entries.length})</h2>
<p>Stopped by a limit of the message class, a destination rule or the recipient's withdrawn consent (SUPPRESSED Unsubscribed / OptedOut: no provider received them, unless the row says the provider took it and did not deliver it), or held for quiet hours (deferred until the time shown).</p>
<table border="1" cellpadding="4"><thead><tr><th>at</th><th>channel</th><th>recipient</th><th>event</th><th>template</th><th>class</th><th>reason</th><th>key</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
  }
}

/** `html` with the board inserted before `</body>` (or appended). */
export function withSuppressions(html: string, board: SuppressionBoard): string {
  return withSection(html, board.html());
}

/** `html` with `section` inserted before `</body>` (or appended). */
export function withSection(html: string, section: string): string {
  const at = html.lastIndexOf('</body>');
  return at < 0 ? html + section : `${html.slice(0, at)}${section}${html.slice(at)}`;
}

/** `html` with `section` inserted right after the opening `<body>` tag (or prepended). */
export function withIntro(html: string, section: string): string {
  const match = /<body[^>]*>/i.exec(html);
  if (!match) return section + html;
  const at = match.index + match[0].length;
  return `${html.slice(0, at)}${section}${html.slice(at)}`;
}
