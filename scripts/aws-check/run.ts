// `npm run test:aws`: deploys an isolated copy of the stack to YOUR AWS account, sends e-mails to the SES
// mailbox simulator (and, if asked, one SMS), checks the ledger rows and the delivery evidence, and destroys
// the copy. Costs and permissions: docs/deployment.md, "End-to-end check on your account". Nothing in CI runs this.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchLogsClient, DeleteLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { finalVerdict, judgeRun, type ObservedRow, reportLines, type RunVerdict } from './assertions';
import { type AwsCheckPlan, deployArgs, destroyArgs, planAwsCheck } from './plan';

/** SES events usually arrive within a minute; a complaint can take a few. */
const DEADLINE_MS = 8 * 60_000;
const POLL_MS = 15_000;

function npx(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { stdio: 'inherit' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`npx ${args.slice(0, 2).join(' ')} exited ${code}`))));
  });
}

function stackOutputs(file: string, stackName: string): Record<string, string> {
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const outputs = all[stackName];
  if (!outputs) throw new Error(`no outputs for ${stackName} in ${file}`);
  return outputs;
}

function output(outputs: Record<string, string>, name: string): string {
  const value = outputs[name];
  if (!value) throw new Error(`stack output ${name} is missing`);
  return value;
}

async function observe(ledger: DynamoDbLedger, plan: AwsCheckPlan): Promise<RunVerdict> {
  const eventIds = [...new Set(plan.expected.map((e) => e.eventId))];
  const rows: ObservedRow[] = (await Promise.all(eventIds.map((id) => ledger.rowsForEvent(id)))).flat();
  return judgeRun(plan.expected, rows);
}

async function main(): Promise<number> {
  const plan = planAwsCheck({
    runId: process.env.NOTIFIER_CHECK_RUN_ID ?? randomBytes(4).toString('hex'),
    emailFrom: process.env.NOTIFIER_CHECK_EMAIL_FROM ?? '',
    smsTo: process.env.NOTIFIER_CHECK_SMS_TO || undefined,
    smsSpendLimitUsd: process.env.NOTIFIER_CHECK_SMS_SPEND_LIMIT_USD ? Number(process.env.NOTIFIER_CHECK_SMS_SPEND_LIMIT_USD) : undefined,
    nowIso: new Date().toISOString(),
  });
  const keep = process.env.NOTIFIER_CHECK_KEEP === 'true';
  const outputsFile = join(mkdtempSync(join(tmpdir(), 'notifier-check-')), 'outputs.json');
  console.log(`Deploying ${plan.stackName} (an isolated copy; destroyed at the end${keep ? ' unless NOTIFIER_CHECK_KEEP' : ''})`);
  let outputs: Record<string, string> | undefined;
  let verdict: RunVerdict | undefined;
  try {
    await npx(deployArgs(plan, outputsFile));
    outputs = stackOutputs(outputsFile, plan.stackName);
    const sqs = new SQSClient({});
    for (const event of plan.sends) {
      await sqs.send(new SendMessageCommand({ QueueUrl: output(outputs, 'QueueUrl'), MessageBody: JSON.stringify(event) }));
    }
    const ledger = new DynamoDbLedger(new DynamoDBClient({}), output(outputs, 'LedgerTableName'));
    const deadline = Date.now() + DEADLINE_MS;
    do {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      verdict = await observe(ledger, plan);
      console.log(reportLines(verdict).join('\n'), '\n');
    } while (!verdict.done && Date.now() < deadline);
    verdict = verdict.done ? verdict : finalVerdict(verdict);
  } finally {
    if (!keep) await destroy(plan, outputs);
  }
  console.log(`\n${plan.stackName}: ${verdict.passed ? 'PASSED' : 'FAILED'}\n${reportLines(verdict).join('\n')}`);
  return verdict.passed ? 0 : 1;
}

/** `cdk destroy`, then what the stack RETAINs on purpose (the ledger and the log groups): this copy is disposable. */
async function destroy(plan: AwsCheckPlan, outputs: Record<string, string> | undefined): Promise<void> {
  await npx(destroyArgs(plan)).catch((error: unknown) => console.error(`destroy failed; delete ${plan.stackName} by hand:`, error));
  if (!outputs) return;
  const table = outputs['LedgerTableName'];
  if (table) await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: table })).catch((e: unknown) => console.error(e));
  const logs = new CloudWatchLogsClient({});
  for (const name of ['SenderLogGroupName', 'ReclaimerLogGroupName', 'StatusLogGroupName']) {
    const group = outputs[name];
    if (group) await logs.send(new DeleteLogGroupCommand({ logGroupName: group })).catch((e: unknown) => console.error(e));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
