import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LEDGER_MAX_ATTEMPTS } from '../../functions/adapters/ledger-client-config';
import { claimOf, ttlSeconds } from '../../functions/core/ledger/ledger-decision';
import type { LogPort } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { STATUS_ASYNC_RETRY_ATTEMPTS } from '../../lib/notifier-status';
import { internalErrorResponse } from '../../local/aws/aws-error-shapes';
import { startWireFaultProxy, type WireFaultProxy } from '../../local/aws/wire-fault-proxy';
import { ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES } from '../../local/cloudwatch-logs-payload';
import { SmsLogSubscription } from '../../local/sms-log-subscription';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { TIMING, seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { RECIPIENT_PHONE, smsDeliveryLogLine } from '../status/status-fixtures';

/**
 * SNS's SMS delivery-status logs reach the real status function through a CloudWatch Logs subscription, which
 * invokes it asynchronously: Lambda retries a failed invocation {@link STATUS_ASYNC_RETRY_ATTEMPTS} more times,
 * then sends the event to the failure destination. No line may vanish on the way, one failure may not stop the
 * path, and no invocation may carry more than Lambda accepts. Faults are the ledger's, at the wire: a proxy in
 * front of the test ledger answers DynamoDB's own 500 (the SDK retries it {@link LEDGER_MAX_ATTEMPTS} times in all).
 */

/** Every event the subscription invoked the (real) status handler with. */
const invocations = vi.hoisted(() => [] as unknown[]);
vi.mock('../../functions/status/create-status-handler', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../functions/status/create-status-handler')>();
  return {
    ...real,
    createStatusHandler: (deps: Parameters<typeof real.createStatusHandler>[0]) => {
      const handler = real.createStatusHandler(deps);
      return (event: unknown, context: Parameters<typeof handler>[1]) => {
        invocations.push(event);
        return handler(event, context);
      };
    },
  };
});

/**
 * Lambda's documented limit on an asynchronous invocation's payload, "1 MB"
 * (https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html; raised from 256 KB in 2025:
 * https://aws.amazon.com/blogs/compute/more-room-to-build-serverless-services-now-support-payloads-up-to-1-mb),
 * read as 1,000,000 bytes, the smaller of its two readings.
 */
const ASYNC_PAYLOAD_LIMIT_BYTES = 1_000_000;

const db = useTestLedger();
const clock = new ControlledClock();
let proxy: WireFaultProxy;
// The status function finds its ledger as a Lambda does, by the SDK's endpoint variable: here, the proxy.
const previousEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
beforeAll(async () => {
  proxy = await startWireFaultProxy({ service: 'dynamodb', target: db.endpoint });
  process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
});
afterAll(async () => {
  if (previousEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
  else process.env.AWS_ENDPOINT_URL_DYNAMODB = previousEndpoint;
  await proxy.stop();
});

/** The ledger refuses its first `requests` DynamoDB requests with a 500 (Infinity: every one). */
function ledgerFailsFirst(requests: number): void {
  let seen = 0;
  proxy.setDecider(() => (seen++ < requests ? { kind: 'error-before', response: internalErrorResponse('dynamodb') } : undefined));
}

/** A text the sender settled as SENT with SNS's message id, as the status function finds it. */
async function sentText(eventId: string, snsMessageId: string): Promise<string> {
  const recipient = { recipientId: 'user-9', phone: RECIPIENT_PHONE, channels: ['sms' as const] };
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId, recipients: [recipient] }), clock.now());
  const now = clock.now();
  expect(await db.ledger.complete(claimOf(row!), { state: 'SENT', providerMessageId: snsMessageId, smsMessageId: snsMessageId }, now, ttlSeconds(now, TIMING))).toBe(true);
  return row!.key;
}

/** What the subscription logged at warn level (never a line's content). */
function capturingLog(): LogPort & { readonly warnings: { message: string; attributes?: Record<string, unknown> }[] } {
  const warnings: { message: string; attributes?: Record<string, unknown> }[] = [];
  return { info: () => undefined, warn: (message, attributes) => void warnings.push({ message, attributes }), error: () => undefined, warnings };
}

/** The subscription of a local run, its status function's ledger behind the fault proxy. */
function subscription(log: LogPort = capturingLog()) {
  invocations.length = 0;
  const status = new SmsLogSubscription({ tableName: db.tableName, metrics: new InMemoryMetrics(), log });
  return {
    logged: (message: string, timestamp: number) => status.log(message, timestamp),
    handOver: () => status.handOver(),
    stop: () => status.stop(),
    counts: () => status.counts,
  };
}

const stopped = (stop: Promise<void>) => stop.then(() => 'stopped', (error: unknown) => `stop() failed: ${String(error)}`);

describe('the SMS delivery-log subscription of a local run', () => {
  it('a hand-over whose invocation fails once is retried: the line reaches its row, none is lost', async () => {
    const key = await sentText('evt-logsub-a', 'sns-logsub-a');
    const sub = subscription();
    ledgerFailsFirst(LEDGER_MAX_ATTEMPTS); // the first invocation's lookup, every SDK attempt of it
    sub.logged(smsDeliveryLogLine('sns-logsub-a', 'SUCCESS'), clock.now());
    await sub.handOver();
    const end = await stopped(sub.stop());
    expect(await db.ledger.get(key)).toMatchObject({ deliveryStatus: 'SUCCESS', deliveryStatusSource: 'sns-sms' });
    expect(end).toBe('stopped');
    expect(sub.counts()).toEqual({ handedOver: 1, failedBatches: 0, refusedTooLarge: 0 });
  });

  it('after a failed hand-over, lines logged later still reach the status function', async () => {
    const first = await sentText('evt-logsub-b1', 'sns-logsub-b1');
    const later = await sentText('evt-logsub-b2', 'sns-logsub-b2');
    const sub = subscription();
    ledgerFailsFirst(LEDGER_MAX_ATTEMPTS);
    sub.logged(smsDeliveryLogLine('sns-logsub-b1', 'SUCCESS'), clock.now());
    await sub.handOver();
    sub.logged(smsDeliveryLogLine('sns-logsub-b2', 'FAILURE'), clock.now());
    await sub.handOver();
    expect(await db.ledger.get(later)).toMatchObject({ deliveryStatus: 'FAILURE', deliveryStatusSource: 'sns-sms' });
    expect(await stopped(sub.stop())).toBe('stopped');
    expect(await db.ledger.get(first)).toMatchObject({ deliveryStatus: 'SUCCESS' });
  });

  it(`an invocation that always fails is tried ${1 + STATUS_ASYNC_RETRY_ATTEMPTS} times, then counted as sent to the failure destination, with a warning`, async () => {
    const key = await sentText('evt-logsub-c', 'sns-logsub-c');
    const log = capturingLog();
    const sub = subscription(log);
    ledgerFailsFirst(Infinity);
    try {
      sub.logged(smsDeliveryLogLine('sns-logsub-c', 'SUCCESS'), clock.now());
      await sub.handOver();
      expect(await stopped(sub.stop())).toBe('stopped');
    } finally {
      proxy.setDecider(() => undefined);
    }
    expect(invocations).toHaveLength(1 + STATUS_ASYNC_RETRY_ATTEMPTS);
    expect(sub.counts()).toEqual({ handedOver: 0, failedBatches: 1, refusedTooLarge: 0 });
    expect(log.warnings).toEqual([expect.objectContaining({ attributes: expect.objectContaining({ lines: 1, attempts: 1 + STATUS_ASYNC_RETRY_ATTEMPTS }) })]);
    expect(JSON.stringify(log.warnings)).not.toContain(RECIPIENT_PHONE);
    expect((await db.ledger.get(key))?.deliveryStatus).toBeUndefined();
  });

  it('a line too large for any payload of its own is refused, as Lambda refuses it: never invoked, counted apart, never as sent to the failure destination (an AWS-docs review)', async () => {
    const log = capturingLog();
    const sub = subscription(log);
    proxy.setDecider(() => undefined);
    const line = JSON.stringify({ notification: { messageId: 'sns-logsub-e' }, status: 'SUCCESS', delivery: { providerResponse: randomBytes(800_000).toString('base64') } });
    sub.logged(line, clock.now());
    expect(await stopped(sub.stop())).toBe('stopped');
    expect(invocations).toEqual([]);
    expect(sub.counts()).toEqual({ handedOver: 0, failedBatches: 0, refusedTooLarge: 1 });
    expect(log.warnings).toEqual([expect.objectContaining({ attributes: expect.objectContaining({ lines: 1, limitBytes: 1_000_000 }) })]);
  });

  it('many lines at once: every line is handed over, and no invocation payload is over the documented limit', async () => {
    const sub = subscription();
    proxy.setDecider(() => undefined);
    // Lines that do not compress away (a long provider response each): together well over the limit.
    const lines = Array.from({ length: 900 }, (_, i) => {
      const line = JSON.parse(smsDeliveryLogLine(`sns-logsub-d-${i}`, 'FAILURE')) as { delivery: Record<string, unknown> };
      return JSON.stringify({ ...line, delivery: { ...line.delivery, providerResponse: randomBytes(1_200).toString('base64') } });
    });
    for (const line of lines) sub.logged(line, clock.now());
    await sub.handOver();
    expect(await stopped(sub.stop())).toBe('stopped');
    // What Lambda counts: the invocation's JSON payload, the gzipped-base64 `awslogs.data` and its envelope.
    const sizes = invocations.map((event) => Buffer.byteLength(JSON.stringify(event)));
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes.filter((bytes) => bytes > ASYNC_PAYLOAD_LIMIT_BYTES)).toEqual([]);
    expect(ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES).toBe(ASYNC_PAYLOAD_LIMIT_BYTES);
    const handed = invocations.flatMap((event) => {
      const data = (event as { awslogs: { data: string } }).awslogs.data;
      return (JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as { logEvents: { message: string }[] }).logEvents.map((e) => e.message);
    });
    expect(handed).toEqual(lines);
    expect(sub.counts()).toEqual({ handedOver: lines.length, failedBatches: 0, refusedTooLarge: 0 });
  });
});
