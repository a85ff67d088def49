import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../bench/bundle-build';
import { ENV } from '../../functions/core/sender-config';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';
import { NotifierStack } from '../../lib/notifier-stack';
import { cdkJsonContext, logicalId, TEST_EMAIL_FROM } from '../cdk/helpers';
import { seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { eventBridgeSesEvent, sesEvent } from '../status/status-fixtures';
import { loginCodeEvent } from '../support/events';
import { startFakeSqs } from '../support/fake-sqs';
import { startTestLedger, type TestLedger } from '../support/ledger-server';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http';
import { sqsEvent, sqsRecord } from '../support/sqs-event';

/**
 * The assets `cdk synth` bundles are what Lambda runs: each is loaded here by the Node 24 binary of the
 * `node` devDependency (Lambda's nodejs22.x), from a directory with no node_modules above it, and invoked
 * once against loopback stand-ins (dynalite for DynamoDB, HTTP responders for SES and SQS).
 */

const require = createRequire(import.meta.url);
const LAMBDA_NODE = join(dirname(require.resolve('node/package.json')), 'bin', 'node');
const INVOKE = fileURLToPath(new URL('./invoke-bundled-handler.mjs', import.meta.url));

type Which = 'senderFunction' | 'reclaimerFunction' | 'statusFunction';

interface SynthesizedFunction {
  readonly assetFile: string;
  readonly environment: Record<string, unknown>;
}

let outdir: string;
let functions: Record<Which, SynthesizedFunction>;
let db: TestLedger;
let ses: LoopbackServer;
let sqs: Awaited<ReturnType<typeof startFakeSqs>>;
let unreachable: LoopbackServer;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'notifier-assets-'));
  const app = new App({ outdir, context: { ...cdkJsonContext(), 'notifier:emailFrom': TEST_EMAIL_FROM } });
  const stack = new NotifierStack(app, 'Smoke', {
    notifier: { emailFrom: TEST_EMAIL_FROM, alarms: { emails: ['oncall@mail.acme-notifier.dev'] } },
  });
  const template = app.synth().getStackByName(stack.stackName).template as {
    Resources: Record<string, { Properties: { Code: { S3Key: string }; Environment: { Variables: Record<string, unknown> } } }>;
  };
  const of = (which: Which): SynthesizedFunction => {
    const resource = template.Resources[logicalId(stack.notifier[which])];
    if (!resource) throw new Error(`no ${which} in the template`);
    const hash = resource.Properties.Code.S3Key.replace(/\.zip$/, '');
    return { assetFile: join(outdir, `asset.${hash}`, 'index.mjs'), environment: resource.Properties.Environment.Variables };
  };
  functions = { senderFunction: of('senderFunction'), reclaimerFunction: of('reclaimerFunction'), statusFunction: of('statusFunction') };

  db = await startTestLedger();
  let sent = 0;
  ses = await startLoopbackServer((req, res, body) => {
    if (req.method === 'POST' && req.url === '/v2/email/outbound-emails' && body.includes(REJECTED_ADDRESS)) {
      res.writeHead(400, { 'content-type': 'application/json', 'x-amzn-errortype': 'MessageRejected' });
      res.end(JSON.stringify({ message: 'Email address is on the account-level suppression list.' }));
    } else if (req.method === 'POST' && req.url === '/v2/email/outbound-emails') {
      sent += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ MessageId: `ses-smoke-${sent}` }));
    } else if (req.method === 'GET' && req.url === '/v2/email/account') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          SendingEnabled: true,
          ProductionAccessEnabled: true,
          SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 0 },
        }),
      );
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    }
  });
  sqs = await startFakeSqs();
  // Every other service the SDK might try: a loopback server answering 500, never the internet.
  unreachable = await startLoopbackServer((_req, res) => {
    res.writeHead(500);
    res.end();
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([ses?.close(), sqs?.close(), unreachable?.close(), db?.stop()]);
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/** The function's synthesized environment with each CloudFormation reference replaced by its loopback stand-in. */
function runtimeEnvironment(which: Which): Record<string, string> {
  const stand_ins: Record<string, string> = {
    [ENV.tableName]: db.tableName,
    [ENV.deadLetterQueueUrl]: `${sqs.endpoint}/123456789012/notifier-dlq`,
    [ENV.sesConfigurationSet]: 'notifier-smoke',
    [ENV.sesBulkConfigurationSet]: 'notifier-smoke-bulk',
    [ENV.sourceQueueUrl]: `${sqs.endpoint}/123456789012/notifier-queue`,
  };
  return Object.fromEntries(
    Object.entries(functions[which].environment).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      const standIn = stand_ins[name];
      if (standIn === undefined) throw new Error(`no loopback stand-in for ${name} (${JSON.stringify(value)})`);
      return [name, standIn];
    }),
  );
}

interface Invocation {
  readonly node: string;
  readonly result: unknown;
}

/** Runs one asset under Node 24 with only the Lambda-like environment (no inherited credentials). */
async function invoke(which: Which, event: unknown): Promise<Invocation> {
  const eventFile = join(outdir, `${which}-event.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const env: Record<string, string> = {
    ...runtimeEnvironment(which),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL: unreachable.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_ENDPOINT_URL_SESV2: ses.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_LAMBDA_FUNCTION_NAME: which,
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const child = spawn(LAMBDA_NODE, [INVOKE, functions[which].assetFile, eventFile], { env, cwd: dirname(functions[which].assetFile) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = stdout.split('\n').find((l) => l.startsWith('SMOKE_RESULT '));
  if (code !== 0 || !line) throw new Error(`${which} exited ${code}\n${stderr}\n${stdout}`.slice(0, 4000));
  return JSON.parse(line.slice('SMOKE_RESULT '.length)) as Invocation;
}

const REJECTED_ADDRESS = 'rejected@mail.acme-notifier.dev';

const emailEvent = (eventId: string, email = 'success@simulator.amazonses.com') =>
  loginCodeEvent({
    eventId,
    occurredAt: new Date().toISOString(),
    recipients: [{ recipientId: 'user-1', email, channels: ['email'] }],
  });

// With TEST_LEDGER_ON_AWS the ledger would be real DynamoDB: this test stays on loopback only.
describe.skipIf(process.env.TEST_LEDGER_ON_AWS === 'true')('bundled Lambda assets (as synthesized) under Node 24', () => {
  it('are ESM bundles split into chunks (index.mjs and the chunks it imports), with no source map', () => {
    for (const which of Object.keys(functions) as Which[]) {
      const { assetFile } = functions[which];
      expect(existsSync(assetFile), assetFile).toBe(true);
      const files = readdirSync(dirname(assetFile));
      expect(files.every((file) => file.endsWith('.mjs')), files.join(' ')).toBe(true);
      expect(files.length, which).toBeGreaterThan(1);
    }
  });

  it('are the bytes the bench sizes and times (bench/bundle-build.ts bundles each entry as the stack does), file for file', async () => {
    const entries = { senderFunction: DEFAULT_ENTRIES.sender, reclaimerFunction: DEFAULT_ENTRIES.reclaimer, statusFunction: DEFAULT_ENTRIES.status };
    for (const which of Object.keys(functions) as Which[]) {
      const built = await buildBundle(entries[which], { withoutSdk: false });
      const dir = dirname(functions[which].assetFile);
      expect(readdirSync(dir).sort(), which).toEqual(built.files.map((f) => f.name).sort());
      for (const file of built.files) expect(Buffer.from(file.contents).equals(readFileSync(join(dir, file.name))), `${which} ${file.name}`).toBe(true);
    }
  });

  it('carry the SDK clients of package-lock.json inside (none is left to the runtime)', () => {
    const assetText = (which: Which): string => {
      const dir = dirname(functions[which].assetFile);
      return readdirSync(dir)
        .map((file) => readFileSync(join(dir, file), 'utf8'))
        .join('\n');
    };
    const installed = (client: string): string =>
      (JSON.parse(readFileSync(require.resolve(`@aws-sdk/${client}/package.json`), 'utf8')) as { version: string }).version;
    const bundledClients = (which: Which): Record<string, string> =>
      Object.fromEntries(
        [...assetText(which).matchAll(/name:"@aws-sdk\/(client-[a-z0-9-]+)",version:"([^"]+)"/g)].map(
          (m) => [m[1] ?? '', m[2] ?? ''],
        ),
      );
    const sender = bundledClients('senderFunction');
    expect(Object.keys(sender)).toEqual(expect.arrayContaining(['client-dynamodb', 'client-sesv2', 'client-sns', 'client-sqs']));
    for (const which of Object.keys(functions) as Which[]) {
      const clients = bundledClients(which);
      expect(Object.keys(clients), which).toContain('client-dynamodb');
      for (const [client, version] of Object.entries(clients)) expect(version, `${which} ${client}`).toBe(installed(client));
    }
  });

  it('the sender sends an e-mail through SES and records it in the ledger', async () => {
    const event = emailEvent('evt-smoke-sender');
    const { node, result } = await invoke('senderFunction', sqsEvent(sqsRecord(JSON.stringify(event))));
    expect(node).toMatch(/^v24\./);
    expect(result).toEqual({ batchItemFailures: [] });
    const sendEmail = ses.requests.filter((r) => r.url === '/v2/email/outbound-emails');
    expect(sendEmail).toHaveLength(1);
    expect(JSON.parse(sendEmail[0]?.body ?? '{}')).toMatchObject({
      FromEmailAddress: TEST_EMAIL_FROM,
      ConfigurationSetName: 'notifier-smoke',
      Destination: { ToAddresses: ['success@simulator.amazonses.com'] },
    });
    const [row] = await db.ledger.rowsForEvent('evt-smoke-sender');
    expect(row).toMatchObject({ state: 'SENT', providerMessageId: 'ses-smoke-1' });
  });

  it('the sender loads its SQS chunk on first use and dead-letters a malformed record', async () => {
    const { result } = await invoke('senderFunction', sqsEvent(sqsRecord('{"eventId": "evt-smoke-malformed"')));
    expect(result).toEqual({ batchItemFailures: [] });
    const [deadLetter] = sqs.sent();
    expect(sqs.sent()).toHaveLength(1);
    expect(deadLetter?.MessageBody).toBe('{"eventId": "evt-smoke-malformed"');
    expect(deadLetter?.MessageAttributes['notifier.failureReason']?.StringValue).toBe('NotJson');
  });

  it('the reclaimer settles a stale claim found through the pending index', async () => {
    const [seeded] = await seedDeadClaims(db.ledger, emailEvent('evt-smoke-reclaimer'), Date.now() - 10 * 60_000);
    const { node, result } = await invoke('reclaimerFunction', {
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      detail: {},
    });
    expect(node).toMatch(/^v24\./);
    expect(result).toMatchObject({ found: 1 });
    expect((await db.ledger.get(seeded?.key ?? ''))?.state).not.toBe('PENDING');
    // A login code is resent with the same key: the reclaimer loaded its SES chunk on this first resend.
    expect(ses.requests.filter((r) => r.url === '/v2/email/outbound-emails')).toHaveLength(2);
  });

  it('the status function records an SES event from EventBridge on the row', async () => {
    const [row] = await db.ledger.rowsForEvent('evt-smoke-sender');
    const detail = sesEvent('Delivery', { key: row?.key, mailAt: new Date().toISOString() });
    const { node, result } = await invoke('statusFunction', eventBridgeSesEvent(detail));
    expect(node).toMatch(/^v24\./);
    expect(result).toMatchObject({ kind: 'eventbridge', recorded: 1 });
    expect((await db.ledger.get(row?.key ?? ''))?.deliveryStatus).toBe('Delivery');
  });

  // The SDK reads an error's name and class from the client's schemas, which the bundling rewrites (lib/bundle-child-process.ts).
  it("the sender reads AWS's errors through the bundled schemas: a redelivery stops at the ledger's ConditionalCheckFailedException, SES's MessageRejected settles FAILED", async () => {
    const before = ses.requests.filter((r) => r.url === '/v2/email/outbound-emails').length;
    const redelivered = await invoke('senderFunction', sqsEvent(sqsRecord(JSON.stringify(emailEvent('evt-smoke-sender')))));
    expect(redelivered.result).toEqual({ batchItemFailures: [] });
    expect(ses.requests.filter((r) => r.url === '/v2/email/outbound-emails')).toHaveLength(before);

    const rejected = await invoke('senderFunction', sqsEvent(sqsRecord(JSON.stringify(emailEvent('evt-smoke-rejected', REJECTED_ADDRESS)))));
    expect(rejected.result).toEqual({ batchItemFailures: [] });
    expect(ses.requests.filter((r) => r.url === '/v2/email/outbound-emails')).toHaveLength(before + 1);
    const [row] = await db.ledger.rowsForEvent('evt-smoke-rejected');
    expect(row).toMatchObject({ state: 'FAILED' });
    expect(row?.failureReason).toMatch(/MessageRejected/);
  });

  it('contacted nothing but the loopback stand-ins', () => {
    expect(unreachable.requests).toEqual([]);
    expect(sqs.requests.map((r) => r.headers['x-amz-target'])).toEqual(['AmazonSQS.SendMessage']);
  });
});
