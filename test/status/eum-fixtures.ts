import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { RECIPIENT_PHONE } from './status-fixtures';

export interface EumEventOptions {
  /** Sent as `Context['idempotency-key']`. @default none (no context) */
  readonly key?: string;
  /** Sent as `Context['claim-version']` (a string, as Context values are). @default none */
  readonly claimVersion?: number | string;
  readonly messageId?: string;
  /** `eventTimestamp`, epoch ms. */
  readonly at: number;
  /**
   * `isFinal`, or `'absent'` to leave the field out (a record AWS's shape does not promise).
   * @default false for TEXT_PENDING and TEXT_QUEUED (AWS's intermediate statuses), true for every other type
   */
  readonly isFinal?: boolean | 'absent';
}

/** An End User Messaging SMS event in the shape of the documentation's example record (trimmed to its fields). */
export function eumEvent(eventType: string, o: EumEventOptions): Record<string, unknown> {
  const context = {
    ...(o.key ? { 'idempotency-key': o.key } : {}),
    ...(o.claimVersion !== undefined ? { 'claim-version': String(o.claimVersion) } : {}),
  };
  return {
    eventType,
    eventVersion: '1.0',
    eventTimestamp: o.at,
    ...(o.isFinal === 'absent' ? {} : { isFinal: o.isFinal ?? (eventType !== 'TEXT_PENDING' && eventType !== 'TEXT_QUEUED') }),
    originationPhoneNumber: '+12065550152',
    destinationPhoneNumber: RECIPIENT_PHONE,
    isInternationalSend: false,
    mcc: '310',
    mnc: '800',
    messageId: o.messageId ?? randomUUID(),
    messageRequestTimestamp: o.at - 300,
    messageEncoding: 'GSM',
    messageType: 'TRANSACTIONAL',
    messageStatus: eventType.replace(/^TEXT_/, ''),
    messageStatusDescription: `Message to ${RECIPIENT_PHONE} has status ${eventType}`,
    ...(Object.keys(context).length > 0 ? { context } : {}),
    totalMessageParts: 1,
    totalMessagePrice: 0.00581,
    totalCarrierFee: 0.00302,
  };
}

/** Events through the stack's path: SNS topic -> SQS queue (raw delivery: the body is the event) -> Lambda. */
export function sqsEvent(...bodies: (Record<string, unknown> | string)[]): SQSEvent {
  return {
    Records: bodies.map((body) => ({
      messageId: randomUUID(),
      receiptHandle: 'AQEB-example',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '1764417600000',
        SenderId: 'AIDAEXAMPLE',
        ApproximateFirstReceiveTimestamp: '1764417600001',
      },
      messageAttributes: {},
      md5OfBody: '0'.repeat(32),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:notifier-sms-events',
      awsRegion: 'us-east-1',
    })),
  };
}

/** The same event as an SNS notification in the body (the subscription without raw delivery). */
export function snsNotificationBody(message: Record<string, unknown>): string {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:notifier-sms-events',
    Subject: null,
    Message: JSON.stringify(message),
    Timestamp: '2026-11-29T12:00:05.000Z',
    SignatureVersion: '1',
    Signature: 'EXAMPLE',
    SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000.pem',
    UnsubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
  });
}
