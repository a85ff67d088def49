import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * The pieces of SNS's awsQuery protocol a Publish needs: form-encoded requests
 * (`Action=Publish&Version=2010-03-31&MessageAttributes.entry.1.Name=...`), XML answers.
 */

/** One message attribute as the query protocol carries it. */
export interface QueryMessageAttribute {
  readonly dataType: string;
  readonly stringValue: string | undefined;
}

/** `MessageAttributes.entry.N.{Name, Value.DataType, Value.StringValue}` into a map by name. */
export function messageAttributes(form: URLSearchParams): ReadonlyMap<string, QueryMessageAttribute> {
  const attributes = new Map<string, QueryMessageAttribute>();
  for (let n = 1; form.has(`MessageAttributes.entry.${n}.Name`); n += 1) {
    const prefix = `MessageAttributes.entry.${n}`;
    attributes.set(form.get(`${prefix}.Name`) ?? '', {
      dataType: form.get(`${prefix}.Value.DataType`) ?? '',
      stringValue: form.get(`${prefix}.Value.StringValue`) ?? undefined,
    });
  }
  return attributes;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);
}

const NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';

function writeXml(res: ServerResponse, status: number, xml: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(xml), 'x-amzn-requestid': randomUUID() });
  res.end(xml);
}

/** `<PublishResponse><PublishResult><MessageId>` as SNS answers an accepted Publish. */
export function writePublishResult(res: ServerResponse, messageId: string): void {
  writeXml(
    res,
    200,
    `<PublishResponse xmlns="${NAMESPACE}"><PublishResult><MessageId>${escapeXml(messageId)}</MessageId></PublishResult>` +
      `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
  );
}

/** An SNS query-protocol error: `<ErrorResponse><Error><Type><Code><Message>` with its HTTP status. */
export function writeSnsError(res: ServerResponse, status: number, code: string, message: string): void {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  writeXml(
    res,
    status,
    `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>${type}</Type><Code>${escapeXml(code)}</Code>` +
      `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
}
