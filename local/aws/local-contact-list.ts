import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeXml } from './sns-query-protocol';

/**
 * The local SES's contact list: who unsubscribed from which topic, what SES's subscription management does
 * with it (https://docs.aws.amazon.com/ses/latest/dg/sending-email-subscription-management.html), and the
 * events SES publishes about it. A test and local fixture, not product code.
 *
 * - A list-managed e-mail to one recipient gets `List-Unsubscribe: <url>` and `List-Unsubscribe-Post:
 *   List-Unsubscribe=One-Click` (RFC 8058), and its first two `{{amazonSESUnsubscribeUrl}}` become the url.
 * - The url's page offers the topic or every topic; a one-click POST unsubscribes from the e-mail's topic.
 *   Either publishes a `Subscription` event with the contact's new preferences.
 * - An e-mail to a contact unsubscribed from its topic (or from all) is accepted and bounced: SES documents
 *   that it bounces it, but no bounce subtype; this stand-in says `UnsubscribedRecipient`.
 */
export class LocalContactList {
  private readonly unsubscribed = new Map<string, { all: boolean; topics: Set<string> }>();
  private readonly links = new Map<string, UnsubscribeLink>();

  constructor(
    readonly name: string,
    private readonly publish: (event: Record<string, unknown>) => void,
  ) {}

  /** Whether `address` unsubscribed from `topic` (or from every topic). */
  isUnsubscribed(address: string, topic: string | undefined): boolean {
    const contact = this.unsubscribed.get(address.toLowerCase());
    return contact !== undefined && (contact.all || (topic !== undefined && contact.topics.has(topic)));
  }

  /**
   * Unsubscribes a contact on SES's side only, with no event (as through the console, or an event the stack
   * never received): the next list-managed e-mail to it bounces.
   */
  unsubscribeDirectly(address: string, topic: string | undefined): void {
    const contact = this.unsubscribed.get(address.toLowerCase()) ?? { all: false, topics: new Set<string>() };
    if (topic) contact.topics.add(topic);
    else contact.all = true;
    this.unsubscribed.set(address.toLowerCase(), contact);
  }

  /** A new unsubscribe link for one e-mail, whose events carry the e-mail's own `mail` object. */
  link(baseUrl: string, mail: SesMail, address: string, topic: string | undefined): string {
    const token = randomUUID();
    const url = `${baseUrl}/unsubscribe/${token}`;
    this.links.set(token, { mail, address, topic, url });
    return url;
  }

  /** The unsubscribe links of the bulk e-mails sent to `address`, oldest first. */
  linksTo(address: string): string[] {
    return [...this.links.values()].filter((l) => l.address.toLowerCase() === address.toLowerCase()).map((l) => l.url);
  }

  /** The mailbox page's section: every list-managed e-mail's unsubscribe link, and whether its contact has used it. */
  html(): string {
    const rows = [...this.links.values()]
      .map(
        (l) =>
          `<tr><td>${escapeXml(l.address)}</td><td>${escapeXml(l.topic ?? '(all)')}</td><td><a href="${escapeXml(l.url)}">unsubscribe</a></td>` +
          `<td>${this.isUnsubscribed(l.address, l.topic) ? 'unsubscribed' : 'subscribed'}</td></tr>`,
      )
      .join('\n');
    return `<section id="unsubscribe-links"><h2>Contact list ${escapeXml(this.name)}: unsubscribe links (${this.links.size})</h2>
<p>SES's one-click <code>List-Unsubscribe</code> link of each bulk e-mail (also where the template shows <code>{{amazonSESUnsubscribeUrl}}</code>). Open one to unsubscribe as its recipient would.</p>
<table border="1" cellpadding="4"><thead><tr><th>to</th><th>topic</th><th>link</th><th>now</th></tr></thead><tbody>${rows}</tbody></table></section>`;
  }

  /**
   * The bounce SES publishes for an accepted e-mail to an unsubscribed contact. SES documents the bounce but no
   * subtype for it: `UnsubscribedRecipient` is this stand-in's name, any Permanent subtype that is not a mailbox
   * one reads the same (functions/status/ses-event.ts).
   */
  bounce(mail: SesMail, address: string): void {
    this.publish({
      eventType: 'Bounce',
      mail,
      bounce: {
        timestamp: new Date().toISOString(),
        bounceType: 'Permanent',
        bounceSubType: 'UnsubscribedRecipient',
        bouncedRecipients: [{ emailAddress: address }],
        feedbackId: randomUUID(),
      },
    });
  }

  /** Serves `/unsubscribe/<token>`: GET the landing page, POST unsubscribe (one-click, or `all=1` from the page). False when the path is not ours. */
  handle(method: string | undefined, path: string, body: string, res: ServerResponse): boolean {
    const match = /^\/unsubscribe\/([0-9a-f-]{36})$/.exec(path);
    if (!match) return false;
    const link = this.links.get(match[1]!);
    if (!link) {
      page(res, 404, 'Unknown unsubscribe link', '<p>This link is not one the local SES made.</p>');
      return true;
    }
    if (method === 'POST') {
      const form = new URLSearchParams(body);
      const all = form.get('all') === '1' || link.topic === undefined;
      this.unsubscribe(link, all);
      page(res, 200, 'Unsubscribed', `<p>${all ? 'Unsubscribed from every topic' : `Unsubscribed from ${escapeXml(link.topic ?? '')}`} of list ${escapeXml(this.name)}.</p>`);
      return true;
    }
    const topic = link.topic ? escapeXml(link.topic) : 'this list';
    page(
      res,
      200,
      'Unsubscribe',
      `<p>List ${escapeXml(this.name)}.</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" id="unsubscribe-topic">Unsubscribe from ${topic}</button></form>
<form method="post"><input type="hidden" name="all" value="1"><button type="submit" id="unsubscribe-all">Unsubscribe from everything</button></form>`,
    );
    return true;
  }

  private unsubscribe(link: UnsubscribeLink, all: boolean): void {
    const address = link.address.toLowerCase();
    const before = this.unsubscribed.get(address) ?? { all: false, topics: new Set<string>() };
    const after = { all: before.all || all, topics: new Set(before.topics) };
    if (!all && link.topic) after.topics.add(link.topic);
    this.unsubscribed.set(address, after);
    const preferences = (state: { all: boolean; topics: Set<string> }) => ({
      unsubscribeAll: state.all,
      topicSubscriptionStatus: [...new Set([...after.topics, ...(link.topic ? [link.topic] : [])])].map((topicName) => ({
        topicName,
        subscriptionStatus: state.all || state.topics.has(topicName) ? 'OptOut' : 'OptIn',
      })),
    });
    this.publish({
      eventType: 'Subscription',
      mail: link.mail,
      subscription: {
        contactList: this.name,
        timestamp: new Date().toISOString(),
        source: 'UnsubscribeHeader',
        newTopicPreferences: preferences(after),
        oldTopicPreferences: preferences(before),
      },
    });
  }
}

/** The `mail` object of an SES event: the e-mail's id, time, destination and tags. */
export interface SesMail {
  readonly timestamp: string;
  readonly messageId: string;
  readonly source: string;
  readonly destination: readonly string[];
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

interface UnsubscribeLink {
  readonly mail: SesMail;
  readonly address: string;
  readonly topic: string | undefined;
  readonly url: string;
}

function page(res: ServerResponse, status: number, title: string, content: string): void {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${content}</body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
