// `npm run test:aws`: deploys an isolated copy of the stack to YOUR AWS account, sends e-mails to the SES
// mailbox simulator (and, if asked, one SMS), checks the ledger rows and the delivery evidence, destroys the copy,
// deploys it again under the same name (a redeploy after `cdk destroy`) and destroys that too
// (scripts/aws-check/lifecycle.ts). Costs and permissions: docs/deployment.md, "End-to-end check on your account".
// Nothing in CI runs this.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchLogsClient, DeleteLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteContactListCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { DeleteQueueCommand, type Message, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { finalVerdict, judgeRun, type ObservedRow, reportLines, type RunVerdict } from './assertions';
import { type LifecycleStep, lifecycleSteps } from './lifecycle';
import { type AwsCheckPlan, planAwsCheck, RETAINED_QUEUE_OUTPUTS } from './plan';
import { drain, plantDeadClaim, sendMalformed, setAlarmState, subscribeToAlarms } from './probe-steps';
import { finalProbeVerdict, judgeAlarmDelivery, judgeDeadLetter, probeLine, type ProbeVerdict } from './probe-verdicts';

/** SES events usually arrive within a minute; a complaint can take a few; the reclaimer runs every minute. */
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
    smsOriginationIdentity: process.env.NOTIFIER_CHECK_SMS_ORIGINATION_IDENTITY || undefined,
    existingContactList: process.env.NOTIFIER_CHECK_CONTACT_LIST || undefined,
    nowIso: new Date().toISOString(),
  });
  const keep = process.env.NOTIFIER_CHECK_KEEP === 'true';
  const [firstDeploy, firstDestroy, redeploy, finalDestroy] = lifecycleSteps(plan, mkdtempSync(join(tmpdir(), 'notifier-check-')));
  if (!firstDeploy?.outputsFile || !firstDestroy || !redeploy || !finalDestroy) throw new Error('the check plan has no deploy/destroy/redeploy/destroy steps');
  console.log(`Deploying ${plan.stackName} (an isolated copy; destroyed, redeployed and destroyed again at the end${keep ? ' unless NOTIFIER_CHECK_KEEP' : ''})`);
  let outputs: Record<string, string> | undefined;
  let verdict: RunVerdict | undefined;
  let probes: ProbeVerdict[] = [];
  try {
    await npx(firstDeploy.args);
    outputs = stackOutputs(firstDeploy.outputsFile, plan.stackName);
    ({ verdict, probes } = await exercise(plan, outputs));
  } finally {
    if (!keep) await destroy(plan, outputs, firstDestroy);
  }
  // Only a list the first deploy created (it succeeded) is the run's to delete; a deploy that failed on an existing one is not.
  const redeployLine = keep ? 'SKIP redeploy: NOTIFIER_CHECK_KEEP keeps the first copy' : await redeployAndDestroy(plan, redeploy, finalDestroy);
  if (!keep && plan.contactList.deleteAfterRun && outputs !== undefined) await deleteContactList(plan.contactList.name);
  const passed = verdict.passed && probes.every((p) => p.kind === 'passed') && !redeployLine.startsWith('FAIL');
  const lines = [...reportLines(verdict), ...probes.map(probeLine), redeployLine];
  console.log(`\n${plan.stackName}: ${passed ? 'PASSED' : 'FAILED'}\n${lines.join('\n')}`);
  return passed ? 0 : 1;
}

/** Sends, plants and sets what the plan says, then polls every verdict until none waits or the deadline passes. */
async function exercise(plan: AwsCheckPlan, outputs: Record<string, string>): Promise<{ verdict: RunVerdict; probes: ProbeVerdict[] }> {
  const sqs = new SQSClient({});
  const ledger = new DynamoDbLedger(new DynamoDBClient({}), output(outputs, 'LedgerTableName'));
  const alarmName = output(outputs, plan.alarm.alarmNameOutput);
  const dlqUrl = output(outputs, 'DeadLetterQueueUrl');
  const subscriber = await subscribeToAlarms(sqs, new SNSClient({}), plan.alarm, output(outputs, 'AlarmTopicArn'));
  try {
    await plantDeadClaim(ledger, plan.reclaim);
    for (const event of plan.sends) {
      await sqs.send(new SendMessageCommand({ QueueUrl: output(outputs, 'QueueUrl'), MessageBody: JSON.stringify(event) }));
    }
    const sourceMessageId = await sendMalformed(sqs, output(outputs, 'QueueUrl'), plan.deadLetter);
    await setAlarmState(plan.alarm, alarmName);
    const alarmBodies: (string | undefined)[] = [];
    const deadLetters: Message[] = [];
    const deadline = Date.now() + DEADLINE_MS;
    let verdict: RunVerdict;
    let probes: ProbeVerdict[];
    do {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      alarmBodies.push(...(await drain(sqs, subscriber.queueUrl, { consume: () => true })).map((m) => m.Body));
      // Only this run's record is taken out of the DLQ: anything else there is left for its owner.
      deadLetters.push(...(await drain(sqs, dlqUrl, { consume: (m) => m.Body === plan.deadLetter.body })));
      verdict = await observe(ledger, plan);
      probes = [judgeAlarmDelivery(plan.alarm, alarmName, alarmBodies), judgeDeadLetter(plan.deadLetter, sourceMessageId, deadLetters)];
      console.log([...reportLines(verdict), ...probes.map(probeLine)].join('\n'), '\n');
    } while (!(verdict.done && probes.every((p) => p.kind !== 'waiting')) && Date.now() < deadline);
    return { verdict: verdict.done ? verdict : finalVerdict(verdict), probes: probes.map(finalProbeVerdict) };
  } finally {
    await subscriber.remove();
  }
}
/**
 * The redeploy under the same stack name after the destroy (it must adopt the kept contact list), a look at its
 * outputs, and its destroy; a `PASS`/`FAIL` line saying which.
 */
async function redeployAndDestroy(plan: AwsCheckPlan, redeploy: LifecycleStep, finalDestroy: LifecycleStep): Promise<string> {
  let outputs: Record<string, string> | undefined;
  try {
    await npx(redeploy.args);
    outputs = stackOutputs(redeploy.outputsFile ?? '', plan.stackName);
    output(outputs, 'QueueUrl');
    return `PASS redeploy: ${redeploy.proves}`;
  } catch (error) {
    return `FAIL redeploy: ${redeploy.proves}: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await destroy(plan, outputs, finalDestroy);
  }
}

/** The contact list the first deploy created and the stack kept (RetainExceptOnCreate): the copy is disposable. */
async function deleteContactList(name: string): Promise<void> {
  await new SESv2Client({}).send(new DeleteContactListCommand({ ContactListName: name })).catch((e: unknown) => console.error(`delete the contact list ${name} by hand:`, e));
}

/** `cdk destroy`, then what the stack RETAINs on purpose (the ledger, the log groups, the dead-letter queues): this copy is disposable. */
async function destroy(plan: AwsCheckPlan, outputs: Record<string, string> | undefined, step: LifecycleStep): Promise<void> {
  await npx(step.args).catch((error: unknown) => console.error(`destroy failed; delete ${plan.stackName} by hand:`, error));
  if (!outputs) return;
  const table = outputs['LedgerTableName'];
  if (table) await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: table })).catch((e: unknown) => console.error(e));
  const logs = new CloudWatchLogsClient({});
  for (const name of ['SenderLogGroupName', 'ReclaimerLogGroupName', 'StatusLogGroupName']) {
    const group = outputs[name];
    if (group) await logs.send(new DeleteLogGroupCommand({ logGroupName: group })).catch((e: unknown) => console.error(e));
  }
  const sqs = new SQSClient({});
  for (const name of RETAINED_QUEUE_OUTPUTS) {
    const queueUrl = outputs[name];
    if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch((e: unknown) => console.error(e));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
