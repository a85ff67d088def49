import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { callingFunction } from '../../local/aws/calling-function';

/**
 * One AWS request a function made in a local run, as it left the process: the SDK's signed request (service
 * from the SigV4 credential scope, method, path, the operation header, the body). Requests of the run itself
 * (creating the table, producing events, reading queues for the summary) run as no function and are not kept.
 */
export interface RecordedCall {
  /** `sender:urgent`, `reclaimer`, `status`, ... (local/aws/calling-function.ts). */
  readonly fn: string;
  /** The SigV4 signing name: `dynamodb`, `sqs`, `ses`, `sns`, `sms-voice`, `events`. */
  readonly service: string;
  readonly method: string;
  readonly path: string;
  /** `X-Amz-Target` of the JSON protocols (`DynamoDB_20120810.GetItem`), if any. */
  readonly target?: string;
  readonly body: string;
}

/** Records every request a function makes until `stop()`: below the SDK, where every client's request passes. */
export class AwsCallRecorder {
  readonly calls: RecordedCall[] = [];
  private readonly onCreated = (message: unknown): void => {
    const request = (message as { request?: ClientRequest }).request;
    const fn = callingFunction();
    if (!request || !fn) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = request.write.bind(request) as (...args: unknown[]) => boolean;
    const end = request.end.bind(request) as (...args: unknown[]) => ClientRequest;
    (request as { write: unknown }).write = (...args: unknown[]) => {
      keep(args[0]);
      return write(...args);
    };
    (request as { end: unknown }).end = (...args: unknown[]) => {
      if (typeof args[0] !== 'function') keep(args[0]);
      const call = this.callOf(fn, request, Buffer.concat(chunks).toString('utf8'));
      if (call) this.calls.push(call);
      return end(...args);
    };
  };

  constructor() {
    subscribe('http.client.request.created', this.onCreated);
  }

  stop(): void {
    unsubscribe('http.client.request.created', this.onCreated);
  }

  private callOf(fn: string, request: ClientRequest, body: string): RecordedCall | undefined {
    const authorization = String(request.getHeader('authorization') ?? '');
    // Credential=AKID/yyyymmdd/region/service/aws4_request
    const service = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization)?.[1];
    if (!service) return undefined;
    const target = request.getHeader('x-amz-target');
    return { fn, service, method: request.method, path: request.path, ...(typeof target === 'string' ? { target } : {}), body };
  }
}
