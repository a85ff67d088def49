import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsRecordDeferral } from '../../functions/adapters/sqs-record-deferral';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { RecordDeferral } from '../../functions/core/queue/record-deferral';
import { DEFAULT_BACKOFF } from '../../functions/core/queue/visibility-backoff';
import { queueDepth } from '../../local/aws/queue-inspection';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { toSqsRecord } from '../../local/aws/sqs-record';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { startWireRig, type WireRig } from './wire-harness';

const db = useTestLedger();
const DAY_MS = 86_400_000;
/** The queue's own visibility timeout: a record still hidden after it was hidden by the backoff. */
const QUEUE_VISIBILITY_SECONDS = 1;

let sqs: LocalSqs;
let client: SQSClient;
beforeAll(async () => {
  sqs = await startLocalSqs({ visibilityTimeoutSeconds: QUEUE_VISIBILITY_SECONDS, maxReceiveCount: 100 });
  client = sqs.client();
});
afterAll(async () => sqs?.stop());

/** An order-shipped event to `count` buyers by e-mail only. */
function emails(eventId: string, count: number): NotificationEvent {
  return orderShippedEvent({
    eventId,
    recipients: Array.from({ length: count }, (_, i) => ({ recipientId: `buyer-${i}`, email: `buyer${i}@shop.test`, channels: ['email'] as const })),
  });
}
const keyOf = (eventId: string, recipientId: string) => idempotencyKey({ eventId, recipientId, channel: 'email', templateId: 'order-shipped' });

/** One ReceiveMessage as Lambda's event source makes it, as the record the handler gets. */
async function receiveOne(): Promise<SQSRecord | undefined> {
  const answer = await client.send(
    new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
  );
  const message = answer.Messages?.[0];
  return message ? toSqsRecord(message, sqs.queueArn, 'us-east-1') : undefined;
}

/** The real SQS deferral, remembering each visibility it set. */
function recordingDeferral(): RecordDeferral & { readonly calls: { receiptHandle: string; seconds: number }[] } {
  const real = new SqsRecordDeferral(client, sqs.queueUrl);
  const calls: { receiptHandle: string; seconds: number }[] = [];
  return {
    calls,
    async defer(receiptHandle, seconds) {
      calls.push({ receiptHandle, seconds });
      await real.defer(receiptHandle, seconds);
    },
  };
}

describe.each([
  { quotaError: 'ThrottlingException', status: 400 },
  { quotaError: 'LimitExceededException', status: 400 },
] as const)('a spent SES daily quota pauses sending, on the wire ($quotaError, HTTP $status)', ({ quotaError }) => {
  let rig: WireRig;
  /** The local SES's clock: moved a day on to refill the quota. */
  let sesNow = Date.now();
  beforeAll(async () => {
    rig = await startWireRig(db, { ses: { limits: { dailyQuota: 2, clock: () => sesNow }, dailyQuotaError: quotaError } });
  });
  afterAll(async () => rig?.stop());

  it('backs the record off for the cap, counts ProviderQuotaExhausted, fails nothing, and sends it exactly once after the refill', async () => {
    const deferral = recordingDeferral();
    const sender = rig.sender(undefined, undefined, deferral);
    const spend = `evt-quota-spend-${quotaError}`;
    const paused = `evt-quota-paused-${quotaError}`;

    // Two e-mails use up the day's quota of two.
    await sender.invoke(toSqsRecord({ MessageId: 'spend', ReceiptHandle: 'rh-spend', Body: JSON.stringify(emails(spend, 2)) }, sqs.queueArn, 'us-east-1'));
    expect(rig.accepted(keyOf(spend, 'buyer-0')) + rig.accepted(keyOf(spend, 'buyer-1'))).toBe(2);

    // The third arrives through the queue and meets the spent quota.
    await client.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: JSON.stringify(emails(paused, 1)) }));
    const first = await receiveOne();
    if (!first) throw new Error('the message did not arrive');
    const response = await sender.invoke(first);

    expect(failedIds(response)).toEqual([first.messageId]);
    expect(deferral.calls).toEqual([{ receiptHandle: first.receiptHandle, seconds: DEFAULT_BACKOFF.capSeconds }]);
    expect(sender.metrics.get(METRIC.ProviderQuotaExhausted)).toBe(1);
    expect(sender.metrics.get(METRIC.ProviderThrottled)).toBe(0);
    expect(sender.metrics.get(METRIC.RecordBackedOff)).toBe(1);
    expect(sender.metrics.get(METRIC.PermanentFailure)).toBe(0);
    const key = keyOf(paused, 'buyer-0');
    expect((await rig.ledger.get(key))?.state).toBe('PENDING');
    expect(rig.accepted(key)).toBe(0);

    // Still hidden after the queue's own visibility timeout: the backoff, not the queue, decides.
    await new Promise((resolve) => setTimeout(resolve, QUEUE_VISIBILITY_SECONDS * 1000 + 500));
    expect(await queueDepth(client, sqs.queueUrl)).toMatchObject({ visible: 0, inFlight: 1 });
    expect(await receiveOne()).toBeUndefined();

    // A day later the quota has refilled; the 40-minute pause is cut short here instead of waited out.
    sesNow += DAY_MS + 1;
    await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: sqs.queueUrl, ReceiptHandle: first.receiptHandle, VisibilityTimeout: 0 }));
    const second = await receiveOne();
    if (!second) throw new Error('the paused message did not come back');
    expect(second.messageId).toBe(first.messageId);
    expect(second.attributes.ApproximateReceiveCount).toBe('2');

    const retry = await rig.sender(undefined, undefined, deferral).invoke(second);
    expect(failedIds(retry)).toEqual([]);
    await client.send(new DeleteMessageCommand({ QueueUrl: sqs.queueUrl, ReceiptHandle: second.receiptHandle }));

    expect(rig.accepted(key)).toBe(1);
    expect((await rig.ledger.get(key))?.state).toBe('SENT');
    expect(deferral.calls).toHaveLength(1);
    for (const recipient of ['buyer-0', 'buyer-1']) expect((await rig.ledger.get(keyOf(spend, recipient)))?.state).toBe('SENT');
    expect(await queueDepth(client, sqs.queueUrl)).toMatchObject({ visible: 0, inFlight: 0 });
  });
});
