import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

/** Which receive of its message a record is. */
export interface ReceiveAttributes {
  /** @default 1 */
  readonly receiveCount?: number;
  /** Epoch ms. @default 0 */
  readonly sentAtMs?: number;
}

/** An SQS record as the Lambda event source delivers it; a new transport id on every delivery. */
export function sqsRecord(body: string, messageId: string = randomUUID(), receive: ReceiveAttributes = {}): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${randomUUID()}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receive.receiveCount ?? 1),
      SentTimestamp: String(receive.sentAtMs ?? 0),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:notifications',
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'sender',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:sender',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/sender',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
