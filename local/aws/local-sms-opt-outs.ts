import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeXml } from './sns-query-protocol';

/** Receives each SMS delivery-status log line (its JSON, its time), with the text it is about. */
export type SmsDeliveryLogSink = (line: string, at: number, text: { readonly key: string | undefined; readonly messageId: string }) => void;

/**
 * SNS's SMS opt-out list, as the local SNS keeps it (https://docs.aws.amazon.com/sns/latest/dg/sms_manage.html):
 * a reply with one of SNS's opt-out keywords opts the number out of every text of the account; a Publish to
 * an opted-out number is accepted and its delivery-status log says `FAILURE`, "Phone number is opted out";
 * `CheckIfPhoneNumberIsOptedOut` answers from the list. A test and local fixture, not product code.
 */
export class LocalSmsOptOuts {
  private readonly optedOut = new Set<string>();

  /** The keywords SNS documents for opting out (SNS developer guide, "Opting out of receiving SMS messages"). */
  static readonly KEYWORDS: readonly string[] = ['ARRET', 'CANCEL', 'END', 'OPT-OUT', 'OPTOUT', 'QUIT', 'REMOVE', 'STOP', 'TD', 'UNSUBSCRIBE'];

  constructor(private readonly logs: SmsDeliveryLogSink | undefined) {}

  /** A reply from `from`: opts it out when the text is one of the keywords. True when it did. */
  reply(from: string, text: string): boolean {
    if (!LocalSmsOptOuts.KEYWORDS.includes(text.trim().toUpperCase())) return false;
    this.optedOut.add(from);
    return true;
  }

  isOptedOut(number: string): boolean {
    return this.optedOut.has(number);
  }

  /** The delivery-status log line of an accepted text: SUCCESS, or FAILURE for an opted-out number. `key`: the text's idempotency key, if it carried one. */
  logDelivery(messageId: string, number: string, smsType: string, key?: string): void {
    if (!this.logs) return;
    const failed = this.isOptedOut(number);
    const at = Date.now();
    this.logs(
      JSON.stringify({
        notification: { messageId, timestamp: new Date(at).toISOString().replace('T', ' ').replace('Z', '') },
        delivery: {
          destination: number,
          smsType,
          providerResponse: failed ? 'Phone number is opted out' : 'Message has been accepted by phone carrier',
          dwellTimeMs: 100,
        },
        status: failed ? 'FAILURE' : 'SUCCESS',
      }),
      at,
      { key, messageId },
    );
  }

  /** Serves `POST /reply` (`from`, `text`) from the outbox page's STOP buttons. False when the path is not ours. */
  handle(method: string | undefined, path: string, form: URLSearchParams, res: ServerResponse): boolean {
    if (method !== 'POST' || path !== '/reply') return false;
    const from = form.get('from') ?? '';
    const optedOut = this.reply(from, form.get('text') ?? '');
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>Reply</title></head><body><p>${
      optedOut ? `${escapeXml(from)} opted out: SNS sends it no more texts.` : 'Not an opt-out keyword.'
    }</p><p><a href="/">Back</a></p></body></html>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
    res.end(html);
    return true;
  }
}

/** `CheckIfPhoneNumberIsOptedOut`'s answer in the query protocol. */
export function writeOptedOutResult(res: ServerResponse, isOptedOut: boolean): void {
  const xml =
    `<CheckIfPhoneNumberIsOptedOutResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><CheckIfPhoneNumberIsOptedOutResult>` +
    `<isOptedOut>${isOptedOut}</isOptedOut></CheckIfPhoneNumberIsOptedOutResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata>` +
    `</CheckIfPhoneNumberIsOptedOutResponse>`;
  res.writeHead(200, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml), 'x-amzn-requestid': randomUUID() });
  res.end(xml);
}
