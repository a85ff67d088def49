import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as sesV2LocalModule from 'aws-ses-v2-local';
import { SES_KEY_TAG } from '../../functions/adapters/ses-email-provider';
import { countByKey } from './accepted-sends';
import { SES_DAILY_QUOTA_EXCEEDED, SES_MAX_SENDING_RATE_EXCEEDED } from './documented-throttling';
import { LocalContactList, type SesMail } from './local-contact-list';
import { closeServer, forwardToLoopback, listenOnLoopback, readBody, replay } from './loopback-http';
import { type SuppressionBoard, withIntro, withSection, withSuppressions } from './suppression-board';
import { SendLimits, type SendLimitOptions } from './send-limits';
import { LocalSesTenants, type LocalSesTenant, type TenantRefusal } from './local-ses-tenants';
import { sesSendingEvents, type SesEventFate } from './ses-sending-events';

/** Options of the local SES v2 server. */
export interface LocalSesOptions {
  /**
   * Sending rate and daily quota, answered as SES documents: `ThrottlingException` (HTTP 400) "Maximum sending rate
   * exceeded." / "Daily message quota exceeded." (local/aws/documented-throttling.ts cites the pages). @default no limits
   */
  readonly limits?: SendLimitOptions;
  /**
   * The error above the daily quota: SES's documented `ThrottlingException` "Daily message quota exceeded.", or
   * 'LimitExceededException' (HTTP 400, the other limit error SendEmail's model lists) with the same message, to put
   * the sender's reading of the message under test. @default 'ThrottlingException'
   */
  readonly dailyQuotaError?: 'ThrottlingException' | 'LimitExceededException';
  /** Messages the sender suppressed, shown under the mailbox page. @default none shown */
  readonly suppressions?: SuppressionBoard;
  /** The account's one contact list, which `ListManagementOptions` must name. @default 'notifier', the stack's default (lib/notifier-consent.ts) */
  readonly contactListName?: string;
  /**
   * Where the server publishes the SES events of its contact list (an unsubscribe's `Subscription`, the
   * `Bounce` of an e-mail to an unsubscribed contact), as a configuration set's event destination would.
   * @default nowhere
   */
  readonly events?: (event: Record<string, unknown>) => void;
  /**
   * The SES tenants the stack created: a send naming another tenant, or a configuration set its tenant does not
   * hold, is refused (local-ses-tenants.ts). @default none checked: any `TenantName` is accepted
   */
  readonly tenants?: readonly LocalSesTenant[];
  /**
   * Publish the sending events of every accepted e-mail to `events` as well (`Send`, `Delivery`, and the mailbox
   * simulator's `Bounce` or `Complaint`: ses-sending-events.ts), as a configuration set's event destination does; `fate`
   * decides, per e-mail, whether they are published, lost or late. @default off: only the contact list's events
   */
  readonly sendingEvents?: { readonly fate?: (key: string | undefined, messageId: string) => SesEventFate };
}

/** One SendEmail the server accepted. */
export interface AcceptedEmail {
  readonly channel: 'email';
  /** The value of the EmailTags entry named SES_KEY_TAG; undefined when the request had none. */
  readonly key: string | undefined;
  readonly messageId: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly configurationSetName: string | undefined;
  /** The request's `TenantName`. */
  readonly tenantName: string | undefined;
  readonly tags: Readonly<Record<string, string>>;
  /** The request's `ListManagementOptions`: set on a list-managed (bulk) e-mail only. */
  readonly listManagementOptions: { readonly ContactListName?: string; readonly TopicName?: string } | undefined;
  /** Milliseconds since the epoch. */
  readonly acceptedAt: number;
}

/** A local SES v2 endpoint with a mailbox page. */
export interface LocalSes {
  /** `http://127.0.0.1:PORT`: the SES v2 client's `endpoint`, or AWS_ENDPOINT_URL_SESV2. */
  readonly endpoint: string;
  /** The web page listing every e-mail received (live). */
  readonly mailboxUrl: string;
  /** Accepted sends by idempotency key (the SES_KEY_TAG tag), counted here, not by the sender. */
  acceptedPerKey(): ReadonlyMap<string, number>;
  /** Every accepted send, in order. */
  accepted(): readonly AcceptedEmail[];
  /** The account's contact list: who unsubscribed, the unsubscribe pages. */
  readonly contactList: LocalContactList;
  /** The tenants and their sending status (pause one to see SES refuse its sends). */
  readonly tenants: LocalSesTenants;
  /** Resolves once every sending event scheduled so far (a late one included) has been handed to `events`. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

const SEND_EMAIL_PATH = '/v2/email/outbound-emails';

/** What the mailbox page shows, at its top. */
export const MAILBOX_INTRO = `<section id="what-this-page-shows"><h1>Local SES v2: the e-mails it delivered</h1>
<p>Every e-mail the local SES delivered, newest first. An e-mail SES accepted and then bounced (a contact unsubscribed from its topic) is not in this list: the run printed it as accepted, and the ledger page shows it SUPPRESSED Unsubscribed. Below: the contact list's unsubscribe links, and the messages the sender suppressed or holds (no provider received those).</p></section>`;

/**
 * Starts aws-ses-v2-local (SES v1/v2 SendEmail and its mailbox page) on a free loopback port,
 * behind a small front on another one that counts every accepted `SendEmail` per idempotency
 * key and, when asked, enforces a sending rate and a daily quota with SES v2's real errors.
 * Everything else (the mailbox page at `/`, `/store`) passes through unchanged.
 *
 * The package keeps one mailbox per process: two servers in one process show the same page,
 * while each counts only its own sends.
 */
export async function startLocalSes(options: LocalSesOptions = {}): Promise<LocalSes> {
  if (process.env.SMTP_TRANSPORT?.trim()) {
    // aws-ses-v2-local forwards every e-mail to that SMTP server; nothing here may leave the machine.
    throw new Error('SMTP_TRANSPORT is set: the local SES server would forward e-mail to it; unset it first');
  }
  const limits = new SendLimits(options.limits);
  const quotaError = options.dailyQuotaError ?? SES_DAILY_QUOTA_EXCEEDED.code;
  const inner = await startSesV2Local();
  const innerPort = (inner.address() as AddressInfo).port;
  const accepted: AcceptedEmail[] = [];
  const tenants = new LocalSesTenants(options.tenants);
  const contactList = new LocalContactList(options.contactListName ?? 'notifier', options.events ?? (() => undefined));
  let endpoint = '';
  const scheduled = new Set<Promise<void>>();
  // `sendOnly`: an e-mail the contact list bounces has its `Send` here; its `Bounce` is the contact list's.
  const publishSendingEvents = (email: AcceptedEmail, mail: SesMail, { sendOnly = false } = {}) => {
    const sink = options.events;
    if (!options.sendingEvents || !sink) return;
    const fate = options.sendingEvents.fate?.(email.key, mail.messageId) ?? 'deliver';
    if (fate === 'drop') return;
    const lateMs = fate === 'deliver' ? 0 : fate.delayMs;
    for (const { afterMs, event } of sesSendingEvents(mail, email.configurationSetName).filter((e) => !sendOnly || e.event.eventType === 'Send')) {
      const done: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, afterMs + lateMs)).then(() => {
        sink(event);
        scheduled.delete(done);
      });
      scheduled.add(done);
    }
  };

  const front = createServer((req, res) => {
    void (async () => {
      let body = await readBody(req);
      const path = req.url?.split('?')[0] ?? '';
      if (contactList.handle(req.method, path, body, res)) return;
      const isSend = req.method === 'POST' && path === SEND_EMAIL_PATH;
      if (isSend) {
        const refused = tenantRefusal(body, tenants);
        if (refused) return writeSesV2Error(res, refused.status, refused.type, refused.message);
        const verdict = limits.admit();
        if (verdict === 'rate-exceeded') return writeSesV2Error(res, SES_MAX_SENDING_RATE_EXCEEDED.status, SES_MAX_SENDING_RATE_EXCEEDED.code, SES_MAX_SENDING_RATE_EXCEEDED.message);
        if (verdict === 'daily-quota-exceeded') return writeSesV2Error(res, 400, quotaError, SES_DAILY_QUOTA_EXCEEDED.message);
        const managed = listManaged(body, contactList, endpoint);
        if (managed.kind === 'unknown-list') return writeSesV2Error(res, 404, 'NotFoundException', `List ${managed.name} does not exist.`);
        if (managed.kind === 'bounced') {
          // Accepted, then bounced: SES refuses later sends to an unsubscribed contact with an event, not an error.
          const email = acceptedEmail(body, JSON.stringify({ MessageId: managed.mail.messageId }));
          if (email) accepted.push(email);
          if (email) publishSendingEvents(email, managed.mail, { sendOnly: true });
          contactList.bounce(managed.mail, managed.address);
          const answer = JSON.stringify({ MessageId: managed.mail.messageId });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
          return void res.end(answer);
        }
        if (managed.kind === 'managed') body = managed.body;
      }
      const answer = await forwardToLoopback(innerPort, req, body);
      if (isSend && answer.status === 200) {
        const email = acceptedEmail(body, answer.body.toString('utf8'));
        if (email) accepted.push(email);
        if (email) publishSendingEvents(email, mailOf(email));
      }
      const isPage = req.method === 'GET' && (req.url === '/' || req.url === '') && String(answer.headers['content-type'] ?? '').includes('text/html');
      if (isPage) {
        // The contact list's unsubscribe links, and what the sender suppressed or holds, under the mailbox.
        const page = withSection(withIntro(answer.body.toString('utf8'), MAILBOX_INTRO), contactList.html());
        replay(res, { ...answer, body: Buffer.from(options.suppressions ? withSuppressions(page, options.suppressions) : page, 'utf8') });
      } else {
        replay(res, answer);
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) writeSesV2Error(res, 500, 'InternalFailure', error instanceof Error ? error.message : 'local SES failed');
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(front);
  endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    mailboxUrl: `${endpoint}/`,
    acceptedPerKey: () => countByKey(accepted),
    accepted: () => [...accepted],
    contactList,
    tenants,
    async settled() {
      while (scheduled.size > 0) await Promise.all([...scheduled]);
    },
    async stop() {
      await Promise.all([closeServer(front), closeServer(inner)]);
    },
  };
}

/**
 * An SES v2 (REST-JSON) error as the service sends it: the status, the type in
 * `x-amzn-ErrorType`, and `{"message": ...}`.
 */
export function writeSesV2Error(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-amzn-errortype': type,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(body);
}

interface SendEmailBody {
  readonly FromEmailAddress?: string;
  readonly Destination?: { readonly ToAddresses?: readonly string[] };
  readonly Content?: {
    readonly Simple?: {
      readonly Subject?: { readonly Data?: string };
      readonly Body?: { readonly Text?: { readonly Data?: string }; readonly Html?: { readonly Data?: string } };
      readonly Headers?: readonly { readonly Name: string; readonly Value: string }[];
    };
  };
  readonly EmailTags?: readonly { readonly Name?: string; readonly Value?: string }[];
  readonly ConfigurationSetName?: string;
  readonly TenantName?: string;
  readonly ListManagementOptions?: { readonly ContactListName?: string; readonly TopicName?: string };
}

/** SES's placeholder for the unsubscribe URL in a list-managed e-mail's text and HTML. */
export const UNSUBSCRIBE_URL_PLACEHOLDER = '{{amazonSESUnsubscribeUrl}}';

type ListManaged =
  | { readonly kind: 'not-managed' }
  | { readonly kind: 'unknown-list'; readonly name: string }
  | { readonly kind: 'bounced'; readonly mail: SesMail; readonly address: string }
  | { readonly kind: 'managed'; readonly body: string };

/**
 * What SES's subscription management does with a SendEmail that names a contact list: refuse a list that is
 * not the account's; bounce an e-mail to a contact who unsubscribed from its topic; for one recipient, add the
 * RFC 8058 one-click headers and put the unsubscribe URL where the placeholder is (its first two places).
 */
function listManaged(body: string, contactList: LocalContactList, baseUrl: string): ListManaged {
  let request: SendEmailBody;
  try {
    request = JSON.parse(body) as SendEmailBody;
  } catch {
    return { kind: 'not-managed' };
  }
  const options = request.ListManagementOptions;
  if (!options) return { kind: 'not-managed' };
  if (options.ContactListName !== contactList.name) return { kind: 'unknown-list', name: options.ContactListName ?? '' };
  const to = request.Destination?.ToAddresses ?? [];
  const mail: SesMail = {
    timestamp: new Date().toISOString(),
    messageId: `local-${randomUUID()}`,
    source: request.FromEmailAddress ?? '',
    destination: to,
    tags: Object.fromEntries((request.EmailTags ?? []).map((t) => [t.Name ?? '', [t.Value ?? '']])),
  };
  if (to.length === 1 && contactList.isUnsubscribed(to[0]!, options.TopicName)) return { kind: 'bounced', mail, address: to[0]! };
  const simple = request.Content?.Simple;
  if (to.length !== 1 || !simple) return { kind: 'managed', body };
  const url = contactList.link(baseUrl, mail, to[0]!, options.TopicName);
  const fill = (text: string | undefined) => (text === undefined ? undefined : replaceFirstTwo(text, UNSUBSCRIBE_URL_PLACEHOLDER, url));
  const text = fill(simple.Body?.Text?.Data);
  const html = fill(simple.Body?.Html?.Data);
  const rewritten: SendEmailBody = {
    ...request,
    Content: {
      ...request.Content,
      Simple: {
        ...simple,
        Body: { ...simple.Body, ...(text !== undefined ? { Text: { ...simple.Body?.Text, Data: text } } : {}), ...(html !== undefined ? { Html: { ...simple.Body?.Html, Data: html } } : {}) },
        Headers: [
          ...(simple.Headers ?? []).filter((h) => !/^list-unsubscribe(-post)?$/i.test(h.Name)),
          { Name: 'List-Unsubscribe', Value: `<${url}>` },
          { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
        ],
      },
    },
  };
  return { kind: 'managed', body: JSON.stringify(rewritten) };
}

/** The tenant's refusal of a SendEmail body, before it counts against the sending rate. */
function tenantRefusal(body: string, tenants: LocalSesTenants): TenantRefusal | undefined {
  try {
    const request = JSON.parse(body) as SendEmailBody;
    return tenants.refusal(request.TenantName, request.ConfigurationSetName);
  } catch {
    return undefined;
  }
}

/** The `mail` object of an accepted e-mail's events: its id, time, sender, recipients and tags. */
function mailOf(email: AcceptedEmail): SesMail {
  return {
    timestamp: new Date(email.acceptedAt).toISOString(),
    messageId: email.messageId,
    source: email.from,
    destination: email.to,
    tags: Object.fromEntries(Object.entries(email.tags).map(([name, value]) => [name, [value]])),
  };
}

function replaceFirstTwo(text: string, placeholder: string, value: string): string {
  let out = text;
  for (let i = 0; i < 2; i += 1) {
    const at = out.indexOf(placeholder);
    if (at < 0) break;
    out = out.slice(0, at) + value + out.slice(at + placeholder.length);
  }
  return out;
}

function acceptedEmail(requestBody: string, answerBody: string): AcceptedEmail | undefined {
  try {
    const request = JSON.parse(requestBody) as SendEmailBody;
    const answer = JSON.parse(answerBody) as { MessageId?: unknown };
    if (typeof answer.MessageId !== 'string') return undefined;
    const tags = Object.fromEntries((request.EmailTags ?? []).map((t) => [t.Name ?? '', t.Value ?? '']));
    return {
      channel: 'email',
      key: tags[SES_KEY_TAG],
      messageId: answer.MessageId,
      from: request.FromEmailAddress ?? '',
      to: request.Destination?.ToAddresses ?? [],
      subject: request.Content?.Simple?.Subject?.Data ?? '',
      configurationSetName: request.ConfigurationSetName,
      tenantName: request.TenantName,
      tags,
      listManagementOptions: request.ListManagementOptions,
      acceptedAt: Date.now(),
    };
  } catch {
    return undefined;
  }
}

type SesV2LocalStart = (config: { host: string; port: number }) => Promise<Server>;

/** The package is CommonJS with `exports.default`; ESM loaders differ on where that lands. */
async function startSesV2Local(): Promise<Server> {
  const candidates: unknown[] = [sesV2LocalModule.default, (sesV2LocalModule.default as unknown as { default?: unknown }).default];
  const start = candidates.find((c): c is SesV2LocalStart => typeof c === 'function');
  if (!start) throw new Error('aws-ses-v2-local: no server function found');
  return start({ host: '127.0.0.1', port: 0 });
}
