/**
 * `npx tsx bench/scale/log-bytes.ts`: bytes the sender Lambda writes to its log group per message, the CloudWatch
 * line of docs/scale.md's cost table. Runs the real entry module (functions/sender/handler.ts), Powertools logger and
 * EMF metrics included, in outbox mode on an in-process dynalite, for batches of 10 single-message events of each
 * class, and counts what it writes to stdout (what Lambda ships to CloudWatch Logs). Beside them, Lambda's own system
 * records per invocation (platform-log-lines.ts: AWS's documented shapes, filled with this stack's values at the
 * model's invocation time). A count, not a timing: it may run on a busy machine. Writes bench/results/log-bytes.json, or
 * the file `LOG_BYTES_OUT` names (test/docs/log-bytes-current.test.ts checks the committed file is still what it measures).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import { DEFAULT_TEMPLATES_DIR, readTemplateFiles } from '../../functions/adapters/template-directory';
import { SHIPPED_SMS_COUNTRIES_IDENTIFIER } from '../../functions/delivery/shipped-sms-countries';
import { buildTemplateRegistry } from '../../functions/core/template-checks/template-registry';
import { SHIPPED_TEMPLATES_IDENTIFIER, shippedTemplatesOf } from '../../functions/sender/shipped-templates';
import { smsCountryTable } from '../../lib/sms-countries';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS, startLocalDynamo } from '../../local/local-dynamo';
import { lambdaContext } from '../../local/lambda-event-source';
import type { LogBytesResult } from './log-bytes-result';
import { platformLogBytes, platformLogRecords, type PlatformLineValues } from './platform-log-lines';
import { instance } from './scale-tables';
import { scaleWorkload, type MessageKind } from './scale-workload';

const BATCHES = 20;
const BATCH_SIZE = 10;
const KINDS: readonly MessageKind[] = [
  { templateId: 'order-shipped', messageClass: 'transactional', channel: 'email' },
  { templateId: 'login-code', messageClass: 'otp', channel: 'sms' },
  { templateId: 'weekly-offers', messageClass: 'marketing', channel: 'push' },
];

const dynamo = await startLocalDynamo();
const table = `log-bytes-${randomUUID().slice(0, 8)}`;
await ensureLedgerTable(dynamo.client(), table);
Object.assign(process.env, {
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOOPBACK_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOOPBACK_CREDENTIALS.secretAccessKey,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // As the stack sets them (lib/notifier-environment.ts), outbox instead of SES/SNS.
  LEDGER_TABLE_NAME: table,
  FUNCTION_TIMEOUT_SECONDS: '30',
  CLAIM_TIMEOUT_SECONDS: '120',
  DELIVERY_MODE: 'outbox',
  OUTBOX_FILE: join(mkdtempSync(join(tmpdir(), 'log-bytes-')), 'outbox.jsonl'),
  DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:9/123456789012/unused-dlq',
  QUEUE_MAX_RECEIVE_COUNT: '100',
  QUEUE_RETENTION_SECONDS: '345600',
  QUEUE_VISIBILITY_TIMEOUT_SECONDS: '180',
  POWERTOOLS_METRICS_NAMESPACE: 'IdempotentNotifier/Notifier/Notifier',
  SEND_LANE: 'urgent',
});
// What synth embeds in the bundle (templates, the SMS countries); unbundled, globals.
(globalThis as Record<string, unknown>)[SHIPPED_TEMPLATES_IDENTIFIER] = shippedTemplatesOf(buildTemplateRegistry(readTemplateFiles(DEFAULT_TEMPLATES_DIR)).values());
(globalThis as Record<string, unknown>)[SHIPPED_SMS_COUNTRIES_IDENTIFIER] = smsCountryTable(['US']);
const { handler } = await import('../../functions/sender/handler');

const record = (body: string): SQSRecord => ({
  messageId: randomUUID(),
  receiptHandle: randomUUID(),
  body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'local', ApproximateFirstReceiveTimestamp: String(Date.now()) },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:notifications',
  awsRegion: 'us-east-1',
});

/** Bytes and lines written to stdout and stderr (Lambda ships both) while `work` runs, nothing printed. */
async function captured(work: () => Promise<unknown>): Promise<{ bytes: number; lines: string[] }> {
  const lines: string[] = [];
  let bytes = 0;
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write.bind(stream));
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      bytes += Buffer.byteLength(text);
      lines.push(...text.split('\n').filter(Boolean));
      return true;
    }) as typeof stream.write;
  }
  try {
    await work();
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i]!));
  }
  return { bytes, lines };
}

const results = [];
for (const kind of KINDS) {
  const workload = scaleWorkload({ kind, messages: BATCHES * BATCH_SIZE, runTag: `${kind.messageClass}-${randomUUID().slice(0, 6)}` });
  let failed = 0;
  const out = await captured(async () => {
    for (let b = 0; b < BATCHES; b += 1) {
      const event: SQSEvent = { Records: workload.items.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE).map((i) => record(i.body)) };
      const response = await handler(event, lambdaContext(Date.now() + 30_000) as Context);
      failed += response.batchItemFailures.length;
    }
  });
  const kindsOfLine = new Map<string, number>();
  for (const line of out.lines) {
    const key = line.includes('"_aws"') ? 'EMF metrics' : (JSON.parse(line) as { message?: string }).message ?? 'other';
    kindsOfLine.set(key, (kindsOfLine.get(key) ?? 0) + 1);
  }
  results.push({
    kind,
    invocations: BATCHES,
    messages: BATCHES * BATCH_SIZE,
    failedRecords: failed,
    bytes: out.bytes,
    bytesPerInvocation: Math.round(out.bytes / BATCHES),
    bytesPerMessage: Math.round(out.bytes / (BATCHES * BATCH_SIZE)),
    lines: Object.fromEntries(kindsOfLine),
  });
  process.stderr.write(`${kind.messageClass} ${kind.channel}: ${Math.round(out.bytes / BATCHES)} bytes per invocation of ${BATCH_SIZE}, failed ${failed}, ${JSON.stringify(Object.fromEntries(kindsOfLine))}\n`);
}
await dynamo.stop();

// The default instance (batch 10, 16 in flight, 512 MB) at the model's invocation time. Not measured here: the
// largest memory used (3 digits: any value from 100 to 511 MB writes the same bytes) and a cold start's init
// duration, function name (CDK's generated one, about 60 characters) and runtime version.
const warm: PlatformLineValues = {
  durationMs: instance({ batchSize: BATCH_SIZE, maxConcurrentSends: 16, memoryMb: 512 }).invocationMs,
  memorySizeMb: 512,
  maxMemoryUsedMb: 160,
};
const cold: PlatformLineValues = {
  ...warm,
  coldStart: { initDurationMs: 450.512, functionName: 'IdempotentNotifier-NotifierSenderUrgentA1B2C3D4-AbCdEfGhIjKl', runtimeVersion: 'nodejs:24.v12' },
};
const platformLines = {
  bytesPerInvocation: platformLogBytes(warm),
  coldStartBytesPerInvocation: platformLogBytes(cold),
  records: platformLogRecords(warm),
  coldStartRecords: platformLogRecords(cold),
};
process.stderr.write(`Lambda system records: ${platformLines.bytesPerInvocation} bytes per invocation, ${platformLines.coldStartBytesPerInvocation} on a cold start\n`);
const written: LogBytesResult & { batchSize: number } = { batchSize: BATCH_SIZE, results, platformLines };
writeFileSync(process.env.LOG_BYTES_OUT ?? join(import.meta.dirname, '..', 'results', 'log-bytes.json'), `${JSON.stringify(written, null, 2)}\n`);
process.exit(0);
