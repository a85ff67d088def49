import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { SNS_KEY_ATTRIBUTE } from '../../functions/adapters/sns-provider';
import { serveProviderSends, type LocalProviderSends } from './accepted-sends';
import { SNS_PUBLISH_THROTTLED, SNS_PUBLISH_THROTTLING } from './documented-throttling';
import { shownPushes, type SnsPublish } from './push-device-view';
import { readBody } from './loopback-http';
import { LocalSmsOptOuts, writeOptedOutResult, type SmsDeliveryLogSink } from './local-sms-opt-outs';
import { SendLimits, type SendLimitOptions } from './send-limits';
import type { SuppressionBoard } from './suppression-board';
import { escapeXml, messageAttributes, writePublishResult, writeSnsError } from './sns-query-protocol';

/** Options of the local SNS server. */
export interface LocalSnsOptions {
  /**
   * Publish rate and daily quota. SNS has no daily Publish quota of its own (SMS has a monthly
   * spend limit), so above either limit the server answers its throttling error. @default no limits
   */
  readonly limits?: SendLimitOptions;
  /**
   * The throttling shape, each HTTP 400 `Rate exceeded`: Publish models no throttling error of its own, so SNS answers
   * the common `ThrottlingException`; 'Throttling' is its older query-protocol name (local/aws/documented-throttling.ts
   * cites the pages). @default 'ThrottlingException'
   */
  readonly throttlingError?: 'ThrottlingException' | 'Throttling';
  /** Platform endpoint ARNs that answer EndpointDisabled. @default none */
  readonly disabledEndpoints?: readonly string[];
  /** Messages the sender suppressed, listed under the published ones. @default none shown */
  readonly suppressions?: SuppressionBoard;
  /**
   * Where the server writes each text's delivery-status log line (SUCCESS, or FAILURE "Phone number is opted
   * out"), as SNS writes them to CloudWatch Logs, with the text it is about (for a fault plan: the line itself
   * names only SNS's message id). @default nowhere
   */
  readonly deliveryLogs?: SmsDeliveryLogSink;
}

/** One Publish the server accepted (its key is the SNS_KEY_ATTRIBUTE message attribute). */
export interface AcceptedPublish extends SnsPublish {
  readonly messageId: string;
  /** A text to a number that had opted out: accepted, never delivered (its log line says so). */
  readonly toOptedOut?: boolean;
}

/** A local SNS endpoint for SMS and mobile push (AWS_ENDPOINT_URL_SNS); publishes counted by the SNS_KEY_ATTRIBUTE attribute. */
export interface LocalSns extends LocalProviderSends<AcceptedPublish> {
  /** A page listing every accepted publish (live on reload). */
  readonly outboxUrl: string;
  /** The account's SMS opt-out list (a STOP reply from the outbox page, or `reply` here). */
  readonly optOuts: LocalSmsOptOuts;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const ENDPOINT_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:endpoint\/[A-Z_]+\/[^/]+\/[A-Za-z0-9-]+$/;

/**
 * A minimal SNS server speaking the awsQuery protocol the v3 SDK uses, for `Publish` to a phone
 * number (SMS) and to a platform endpoint `TargetArn` (push), with SNS's validation errors and,
 * when asked, its throttling errors. No package serves these two (fauxqs's SNS has topics only).
 * A test and local fixture, not product code.
 */
export async function startLocalSns(options: LocalSnsOptions = {}): Promise<LocalSns> {
  const limits = new SendLimits(options.limits);
  const disabled = new Set(options.disabledEndpoints ?? []);
  const throttle = options.throttlingError === 'Throttling' ? SNS_PUBLISH_THROTTLING : SNS_PUBLISH_THROTTLED;
  const accepted: AcceptedPublish[] = [];
  const optOuts = new LocalSmsOptOuts(options.deliveryLogs);

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') return writeOutboxPage(res, accepted, options.suppressions);
      const form = new URLSearchParams(await readBody(req));
      if (optOuts.handle(req.method, req.url?.split('?')[0] ?? '', form, res)) return;
      const action = form.get('Action');
      if (action === 'CheckIfPhoneNumberIsOptedOut') {
        const number = form.get('phoneNumber') ?? '';
        if (!E164.test(number)) return writeSnsError(res, 400, 'InvalidParameter', 'Invalid parameter: PhoneNumber');
        return writeOptedOutResult(res, optOuts.isOptedOut(number));
      }
      if (action !== 'Publish') return writeSnsError(res, 400, 'InvalidAction', `Could not find operation ${action ?? ''} for version 2010-03-31`);
      const publish = validatePublish(form, disabled);
      if ('error' in publish) return writeSnsError(res, publish.status, publish.error, publish.message);
      const verdict = limits.admit();
      if (verdict !== 'accepted') return writeSnsError(res, throttle.status, throttle.code, throttle.message);
      const messageId = randomUUID();
      const toOptedOut = publish.channel === 'sms' && optOuts.isOptedOut(publish.target);
      accepted.push({ ...publish, messageId, acceptedAt: Date.now(), ...(toOptedOut ? { toOptedOut } : {}) });
      writePublishResult(res, messageId);
      if (publish.channel === 'sms') optOuts.logDelivery(messageId, publish.target, publish.attributes['AWS.SNS.SMS.SMSType'] ?? 'Transactional', publish.key);
    })().catch((error: unknown) => {
      if (!res.headersSent) writeSnsError(res, 500, 'InternalError', error instanceof Error ? error.message : 'local SNS failed');
      else res.destroy();
    });
  });
  return { ...(await serveProviderSends(server, accepted)), optOuts };
}

type Refusal = { readonly status: number; readonly error: string; readonly message: string };

function invalid(message: string): Refusal {
  return { status: 400, error: 'InvalidParameter', message: `Invalid parameter: ${message}` };
}

/** SNS's checks on a Publish to a phone number or endpoint, in SNS's words. */
function validatePublish(form: URLSearchParams, disabled: ReadonlySet<string>): Omit<AcceptedPublish, 'messageId' | 'acceptedAt'> | Refusal {
  const phoneNumber = form.get('PhoneNumber');
  const targetArn = form.get('TargetArn');
  const topicArn = form.get('TopicArn');
  const targets = [phoneNumber, targetArn, topicArn].filter((t) => t !== null);
  if (targets.length === 0) return invalid('TopicArn or TargetArn Reason: no value for required parameter');
  if (targets.length > 1) return invalid('TopicArn or TargetArn Reason: Only one of TopicArn, TargetArn or PhoneNumber may be given');
  if (topicArn !== null) return { status: 404, error: 'NotFound', message: 'Topic does not exist' };
  if (phoneNumber !== null && !E164.test(phoneNumber)) return invalid(`PhoneNumber Reason: ${phoneNumber} is not valid to publish to`);
  if (targetArn !== null && !ENDPOINT_ARN.test(targetArn)) return invalid('TargetArn Reason: ARN is not a platform endpoint ARN');
  if (targetArn !== null && disabled.has(targetArn)) return { status: 400, error: 'EndpointDisabled', message: 'Endpoint is disabled' };

  const message = form.get('Message') ?? '';
  if (message.length === 0) return invalid('Empty message');
  const messageStructure = form.get('MessageStructure') ?? undefined;
  if (messageStructure === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return invalid('Message Structure - JSON message body failed to parse');
    }
    const fallback = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).default : undefined;
    if (typeof fallback !== 'string') return invalid('Message Structure - No default entry in JSON message body');
  }
  const attributes: Record<string, string> = {};
  for (const [name, attribute] of messageAttributes(form)) {
    if (attribute.dataType.length === 0) return invalid(`The message attribute '${name}' must contain non-empty message attribute type.`);
    if (attribute.stringValue !== undefined) attributes[name] = attribute.stringValue;
  }
  return {
    channel: phoneNumber !== null ? 'sms' : 'push',
    key: attributes[SNS_KEY_ATTRIBUTE],
    target: phoneNumber ?? targetArn ?? '',
    message,
    messageStructure,
    attributes,
  };
}

function writeOutboxPage(res: ServerResponse, accepted: readonly AcceptedPublish[], suppressions: SuppressionBoard | undefined): void {
  const rows = accepted
    .map(
      (p) =>
        `<tr><td>${new Date(p.acceptedAt).toISOString()}</td><td>${p.channel}</td><td>${escapeXml(p.target)}</td><td>${escapeXml(p.key ?? '')}</td>` +
        `<td>${escapeXml(shownText(p))}${p.toOptedOut ? ' <b>(not delivered: opted out)</b>' : ''}</td><td>${p.channel === 'sms' ? stopButton(p.target) : ''}</td></tr>`,
    )
    .join('\n');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Local SNS: ${accepted.length} published</title></head><body>
<h1>Local SNS: SMS and push published</h1>
<p>Every SMS and push the local SNS accepted, oldest first, with the idempotency key it carried. A text to a number that replied STOP is marked as not delivered; the ledger page has each message's final state. Below: the pushes as the devices show them, and the messages the sender suppressed or holds (no provider received those).</p>
<table border="1" cellpadding="4"><thead><tr><th>accepted at</th><th>channel</th><th>to</th><th>idempotency key</th><th>text</th><th>reply</th></tr></thead>
<tbody>${rows}</tbody></table>
${devicesSection(accepted)}${suppressions ? suppressions.html() : ''}</body></html>`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** Pushes as the devices show them: one entry per collapse id, marked when a later delivery replaced it. */
function devicesSection(accepted: readonly AcceptedPublish[]): string {
  const shown = shownPushes(accepted);
  if (shown.length === 0) return '';
  const rows = shown
    .map(
      (p) =>
        `<tr class="${p.deliveries > 1 ? 'replaced' : 'shown'}"><td>${escapeXml(p.target)}</td><td>${escapeXml(p.platform)}</td>` +
        `<td>${escapeXml(p.collapseId ?? '(none: shown once per delivery)')}</td><td>${escapeXml(p.title)}</td><td>${escapeXml(p.body)}</td>` +
        `<td>${p.deliveries > 1 ? `replaced: ${p.deliveries} deliveries shown as one` : 'shown'}</td></tr>`,
    )
    .join('\n');
  return `<h2>Push, as the devices show it (${shown.length} notifications from ${accepted.filter((p) => p.channel === 'push').length} pushes)</h2>
<p>Every push above was billed and woke its device; a device shows one notification per collapse id (APNs) or tag (FCM).</p>
<table border="1" cellpadding="4"><thead><tr><th>device (endpoint)</th><th>platform</th><th>collapse id / tag</th><th>title</th><th>body</th><th>on the device</th></tr></thead>
<tbody>${rows}</tbody></table>
`;
}

/** A form that replies STOP from the number, as its owner would: SNS opts it out. */
function stopButton(number: string): string {
  return `<form method="post" action="/reply"><input type="hidden" name="from" value="${escapeXml(number)}"><input type="hidden" name="text" value="STOP"><button type="submit">Reply STOP</button></form>`;
}

/** The SMS text, or a push's `default` text. */
function shownText(p: AcceptedPublish): string {
  if (p.messageStructure !== 'json') return p.message;
  const parsed = JSON.parse(p.message) as { default?: unknown };
  return typeof parsed.default === 'string' ? parsed.default : '';
}
