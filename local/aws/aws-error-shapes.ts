import { randomUUID } from 'node:crypto';
import { eumErrorBody, EUM_JSON_CONTENT_TYPE, type EumErrorShape } from './eum-json-protocol';
import type { WireService } from './wire-operation';

/** An HTTP answer as a service would send it. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * An error answer in the wire shape of each service's protocol, so the real SDK client parses it
 * exactly as it parses AWS's own: awsJson1_0 (DynamoDB, SQS) puts the code in `__type`; restJson1
 * (SES v2) in the `x-amzn-ErrorType` header; awsQuery (SNS) in an XML `<Error><Code>`.
 *
 * @param code the code as it travels on the wire (SNS: `Throttled`, not `ThrottledException`).
 */
export function awsErrorResponse(
  service: WireService,
  status: number,
  code: string,
  message: string,
  modeled: Omit<EumErrorShape, 'code' | 'message'> = {},
): WireResponse {
  const requestId = randomUUID();
  switch (service) {
    case 'sms-voice':
      // awsJson1_0 with the modeled members (`Reason`, `Fields`) the SDK maps onto the exception.
      return { status, headers: { 'content-type': EUM_JSON_CONTENT_TYPE, 'x-amzn-requestid': requestId }, body: eumErrorBody({ code, message, ...modeled }) };
    case 'dynamodb':
      return json(status, requestId, { __type: `com.amazonaws.dynamodb.v20120810#${code}`, message }, 'application/x-amz-json-1.0');
    case 'sqs':
      return {
        ...json(status, requestId, { __type: `com.amazonaws.sqs#${code}`, message }, 'application/x-amz-json-1.0'),
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': requestId,
          'x-amzn-query-error': `${code};${status >= 500 ? 'Receiver' : 'Sender'}`,
        },
      };
    case 'sesv2':
      return {
        status,
        headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId, 'x-amzn-errortype': code },
        body: JSON.stringify({ message }),
      };
    case 'sns':
      return {
        status,
        headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
        body:
          '<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error>' +
          `<Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message>` +
          `</Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      };
  }
}

/** The service's own "internal error" answer, as a 5xx would come from AWS. */
export function internalErrorResponse(service: WireService): WireResponse {
  switch (service) {
    case 'dynamodb':
      return awsErrorResponse(service, 500, 'InternalServerError', 'Internal server error (injected)');
    case 'sqs':
      return awsErrorResponse(service, 500, 'InternalError', 'We encountered an internal error (injected)');
    case 'sesv2':
      return awsErrorResponse(service, 500, 'InternalServiceErrorException', 'Internal service error (injected)');
    case 'sns':
      return awsErrorResponse(service, 500, 'InternalError', 'Internal error (injected)');
    case 'sms-voice':
      return awsErrorResponse(service, 500, 'InternalServerException', 'Internal server error (injected)');
  }
}

function json(status: number, requestId: string, body: unknown, contentType: string): WireResponse {
  return { status, headers: { 'content-type': contentType, 'x-amzn-requestid': requestId }, body: JSON.stringify(body) };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
