/**
 * The child of bench/ledger-timeouts.ts, started inside a CPU-limited cgroup: the Lambda sender's
 * handler with the production ledger client settings (TLS to the ledger, as in Lambda), fed batches
 * of 10 records of 4 messages each with 16 deliveries in flight. It times every HTTP attempt of the
 * ledger client exactly where its connect and request timers run (the request handler), and prints
 * one JSON line with what it saw.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import type { SQSRecord } from 'aws-lambda';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { createSenderHandler } from '../../functions/sender/create-sender-handler';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const LOOPBACK = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } as const;
const SEND_TIMEOUT_MS = 5_000;
const invocations = Number(env('INVOCATIONS'));

const ledgerConfig = ledgerClientConfig();
const attempts: { ms: number; error?: string; invocation: number }[] = [];
let invocation = 0;
const handler = ledgerConfig.requestHandler;
const handle = handler.handle.bind(handler);
handler.handle = async (...args: Parameters<typeof handle>) => {
  const started = performance.now();
  const at = invocation;
  try {
    const answer = await handle(...args);
    attempts.push({ ms: performance.now() - started, invocation: at });
    return answer;
  } catch (error) {
    attempts.push({ ms: performance.now() - started, error: (error as Error).name, invocation: at });
    throw error;
  }
};
const dynamo = new DynamoDBClient({ ...ledgerConfig, ...LOOPBACK, endpoint: env('DYNAMO_ENDPOINT') });
const ses = new SESv2Client({ ...sendClientConfig(SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: env('SES_ENDPOINT') });
const sns = new SNSClient({ ...sendClientConfig(SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: env('SNS_ENDPOINT') });
const snsProvider = new SnsProvider(sns);
const metrics = new InMemoryMetrics();
const sender = createSenderHandler({
  ledger: new DynamoDbLedger(dynamo, env('TABLE_NAME')),
  providers: { email: new SesEmailProvider(ses, { fromAddress: 'orders@shop.test' }), sms: snsProvider, push: snsProvider },
  deadLetters: new InMemoryDeadLetters(),
  metrics,
  log: silentLog,
  clock: Date.now,
  newOwnerToken: randomUUID,
  timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
  sendTimeoutMs: SEND_TIMEOUT_MS,
  messageClasses: buildMessageClassRegistry(),
  templates: repositoryTemplates(),
  maxBodyBytes: 64 * 1024,
  maxClockSkewMs: 300_000,
  maxConcurrentSends: 16,
});

/** A shipped order: the buyer by e-mail, SMS and push, the seller by e-mail. */
function record(n: number): SQSRecord {
  const body = JSON.stringify({
    eventId: `evt-bench-${randomUUID()}-${n}`,
    occurredAt: new Date().toISOString(),
    type: 'OrderShipped',
    templateId: 'order-shipped',
    messageClass: 'transactional',
    data: { orderId: String(1000 + n), carrier: 'DHL', trackingNumber: `JD${n}` },
    recipients: [
      {
        recipientId: `buyer-${n}`,
        email: 'buyer@example.com',
        phone: '+447700900123',
        pushEndpointArn: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab',
        channels: ['email', 'sms', 'push'],
      },
      { recipientId: `seller-${n}`, email: 'seller@example.com', channels: ['email'] },
    ],
  });
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:notifications',
    awsRegion: 'us-east-1',
  };
}

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
const invocationMs: number[] = [];
let failedRecords = 0;
for (invocation = 0; invocation < invocations; invocation += 1) {
  const started = performance.now();
  const deadline = Date.now() + 30_000;
  const answer = await sender(
    { Records: Array.from({ length: 10 }, (_, i) => record(invocation * 10 + i)) },
    { getRemainingTimeInMillis: () => deadline - Date.now() } as never,
  );
  failedRecords += answer.batchItemFailures.length;
  invocationMs.push(performance.now() - started);
}
loop.disable();
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(
  `${JSON.stringify({
    attempts,
    invocationMs,
    failedRecords,
    sent: metrics.get(METRIC.Sent),
    ledgerErrors: metrics.get(METRIC.LedgerError),
    eventLoopDelayMs: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - wallStart,
  })}\n`,
);
for (const client of [dynamo, ses, sns]) client.destroy();
