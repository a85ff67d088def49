import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { CloudWatchLogsEvent, SNSEvent } from 'aws-lambda';

export const RECIPIENT_EMAIL = 'user9@example.com';
export const RECIPIENT_PHONE = '+14155550101';

export interface SesEventOptions {
  /** The idempotency key sent as the `idempotency-key` message tag. @default none (no tag) */
  readonly key?: string;
  readonly sesMessageId?: string;
  /** The mail's own timestamp (Send, Reject, RenderingFailure use it). */
  readonly mailAt: string;
  /** The event's own timestamp for types that carry one. @default mailAt */
  readonly at?: string;
  /** The sending attempt's claim version, sent as the `claim-version` tag (a string, as SES tags are). @default none (no tag) */
  readonly claimVersion?: number | string;
  /** A Bounce's `bounceType` and `bounceSubType`. @default Permanent/General */
  readonly bounce?: { readonly type: string; readonly subType: string };
}

/** An SES v2 configuration-set event as SES publishes it (trimmed to realistic fields). */
export function sesEvent(eventType: string, o: SesEventOptions): Record<string, unknown> {
  const at = o.at ?? o.mailAt;
  const mail = {
    timestamp: o.mailAt,
    source: 'notifier@example.com',
    sendingAccountId: '123456789012',
    messageId: o.sesMessageId ?? `0100-${randomUUID()}`,
    destination: [RECIPIENT_EMAIL],
    headersTruncated: false,
    tags: {
      'ses:configuration-set': ['notifier'],
      'message-class': ['transactional'],
      ...(o.key ? { 'idempotency-key': [o.key] } : {}),
      ...(o.claimVersion !== undefined ? { 'claim-version': [String(o.claimVersion)] } : {}),
    },
  };
  const bodies: Record<string, Record<string, unknown>> = {
    Delivery: { delivery: { timestamp: at, recipients: [RECIPIENT_EMAIL], processingTimeMillis: 500, smtpResponse: '250 ok' } },
    Bounce: {
      bounce: {
        timestamp: at,
        bounceType: o.bounce?.type ?? 'Permanent',
        bounceSubType: o.bounce?.subType ?? 'General',
        bouncedRecipients: [{ emailAddress: RECIPIENT_EMAIL, diagnosticCode: `smtp; 550 ${RECIPIENT_EMAIL} unknown` }],
      },
    },
    Complaint: { complaint: { timestamp: at, complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: RECIPIENT_EMAIL }] } },
    DeliveryDelay: { deliveryDelay: { timestamp: at, delayType: 'MailboxFull', delayedRecipients: [{ emailAddress: RECIPIENT_EMAIL }] } },
    Reject: { reject: { reason: 'Bad content' } },
    Send: { send: {} },
  };
  return { eventType, mail, ...(bodies[eventType] ?? {}) };
}

/** SES events through an SNS topic subscription: one record per message. */
export function snsEvent(...messages: (Record<string, unknown> | string)[]): SNSEvent {
  return {
    Records: messages.map((message) => ({
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      EventSubscriptionArn: 'arn:aws:sns:us-east-1:123456789012:ses-events:6f1c5e2a-0000-4000-8000-000000000000',
      Sns: {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:ses-events',
        Subject: null as unknown as string,
        Message: typeof message === 'string' ? message : JSON.stringify(message),
        Timestamp: '2026-11-29T12:00:05.000Z',
        SignatureVersion: '1',
        Signature: 'EXAMPLE',
        SigningCertUrl: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000.pem',
        UnsubscribeUrl: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
        MessageAttributes: {},
      },
    })),
  };
}

/** An SNS SMS delivery-status log line as SNS writes it to CloudWatch Logs. */
export function smsDeliveryLogLine(snsMessageId: string, status: 'SUCCESS' | 'FAILURE'): string {
  return JSON.stringify({
    notification: { messageId: snsMessageId, timestamp: '2026-11-29 12:00:01.123' },
    delivery: {
      phoneCarrier: 'Example Mobile',
      mnc: 1,
      destination: RECIPIENT_PHONE,
      priceInUSD: 0.00645,
      smsType: 'Transactional',
      mcc: 310,
      providerResponse: status === 'SUCCESS' ? 'Message has been accepted by phone carrier' : 'Unknown error attempting to reach phone',
      dwellTimeMs: 599,
      dwellTimeMsUntilDeviceAck: 1344,
    },
    status,
  });
}

/** A CloudWatch Logs subscription-filter invocation: base64 of gzip of the JSON payload. */
export function cloudWatchLogsEvent(
  logEvents: { message: string; timestamp: number }[],
  messageType: 'DATA_MESSAGE' | 'CONTROL_MESSAGE' = 'DATA_MESSAGE',
): CloudWatchLogsEvent {
  const payload = {
    messageType,
    owner: '123456789012',
    logGroup: 'sns/us-east-1/123456789012/DirectPublishToPhoneNumber',
    logStream: randomUUID(),
    subscriptionFilters: ['notifier-sms-status'],
    logEvents: logEvents.map((e, i) => ({ id: `${Date.now()}${i}`, ...e })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64') } };
}

/** An SES event delivered by EventBridge (SES event destination of type EventBridge). */
export function eventBridgeSesEvent(detail: Record<string, unknown>): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Email Delivered',
    source: 'aws.ses',
    account: '123456789012',
    time: '2026-11-29T12:00:05Z',
    region: 'us-east-1',
    resources: ['arn:aws:ses:us-east-1:123456789012:configuration-set/notifier'],
    detail,
  };
}
