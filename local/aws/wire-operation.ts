import type { IncomingHttpHeaders } from 'node:http';

/** The AWS services this product talks to, as seen on the wire. */
export type WireService = 'dynamodb' | 'sqs' | 'sesv2' | 'sns' | 'sms-voice';

/** One request as the proxy sees it: which service, which API operation, and its body. */
export interface WireRequest {
  readonly service: WireService;
  /** The API operation name (`PutItem`, `UpdateItem`, `SendEmail`, `Publish`, `SendTextMessage`, ...). */
  readonly operation: string;
  readonly body: string;
  /** For DynamoDB: which ledger write this is, read from its expressions (see {@link ledgerWriteOf}). */
  readonly ledgerWrite?: LedgerWrite;
}

/** The sender's and reclaimer's DynamoDB requests, told apart by their expressions. */
export type LedgerWrite = 'claim' | 'takeover' | 'complete' | 'release' | 'status' | 'get' | 'query' | 'other';

/**
 * Names the operation of a request by the protocol each service speaks: the JSON protocols
 * (DynamoDB, SQS, End User Messaging SMS) put it in `X-Amz-Target`, SNS's query protocol in the form's `Action`,
 * and SES v2's REST protocol in the path.
 */
export function wireRequestOf(service: WireService, method: string, url: string, headers: IncomingHttpHeaders, body: string): WireRequest {
  const target = headers['x-amz-target'];
  if (typeof target === 'string' && target.includes('.')) {
    const operation = target.slice(target.lastIndexOf('.') + 1);
    return { service, operation, body, ...(service === 'dynamodb' ? { ledgerWrite: ledgerWriteOf(operation, body) } : {}) };
  }
  if (service === 'sns' || service === 'sqs') {
    const action = new URLSearchParams(body).get('Action');
    return { service, operation: action ?? 'Unknown', body };
  }
  return { service, operation: sesV2OperationOf(method, url), body };
}

function sesV2OperationOf(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  if (method === 'POST' && path === '/v2/email/outbound-emails') return 'SendEmail';
  if (method === 'GET' && path === '/v2/email/account') return 'GetAccount';
  return `${method} ${path}`;
}

/** Tells the ledger's writes apart by what only each of them writes (see functions/adapters/dynamodb-ledger.ts). */
export function ledgerWriteOf(operation: string, body: string): LedgerWrite {
  if (operation === 'PutItem') return 'claim';
  if (operation === 'GetItem') return 'get';
  if (operation === 'Query') return 'query';
  if (operation !== 'UpdateItem') return 'other';
  let update = '';
  try {
    update = String((JSON.parse(body) as { UpdateExpression?: unknown }).UpdateExpression ?? '');
  } catch {
    return 'other';
  }
  if (update.includes('ownerToken = :owner')) return 'takeover';
  if (update.includes('resolvedAt')) return 'complete';
  if (update.includes('lastRelease = :reason')) return 'release';
  // A status, or the proof of a send (and of a delivery) kept on its own when its status came late (dynamodb-delivery-status.ts).
  if (update.includes('deliveryStatus') || update.includes('sendProvenBy')) return 'status';
  return 'other';
}
