import { beforeAll, describe, expect, it } from 'vitest';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import type { LocalLane } from '../../local/local-lanes';
import { LOCAL_STACK, localStackThroughEndUserMessaging, runLocal } from '../../local/local-runner';
import type { LocalStack } from '../../local/local-stack';
import { wireFaults } from '../../local/aws/wire-fault-plan';
import { runWireSimulation } from '../../local/wire-simulation';
import { wireStack } from '../../local/wire-stack';
import { LOCAL_REGION } from '../../local/local-dynamo';
import { NotifierStack } from '../../lib/notifier-stack';
import { logicalId, newApp, STUB_ENTRY } from '../cdk/helpers';
import { AwsCallRecorder, type RecordedCall } from './aws-call-recorder';
import { createLedger } from '../../functions/adapters/ledger-clients';
import { runAsFunction } from '../../local/aws/calling-function';
import { ExecutionEnvironment } from '../../local/execution-environment';
import { seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { orderShippedEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { sendAndDeliver, startOutcomeFeed } from '../local/outcome-feed-rig';
import { iamRequestsOf, type Deployment, type IamRequest } from './iam-requests';
import { deniedRequests, grantUse, type Grant } from './least-privilege';
import { functionsOf, grantsOf, platformRequests, TemplateResolver, type TemplateJson } from './template-roles';
import { EXAMPLE_RUN } from '../support/example-run';
import { LOCAL_SMS_CONFIGURATION_SET } from '../../local/aws/local-sms-events';
import { deployTimeRequests } from './deploy-time-calls';

/**
 * The first deploy's permissions, proven offline (docs/iam-check.md): every AWS request the Lambdas make in a
 * small local run (`npm start`'s example events), the same local run texting through End User Messaging, a small
 * wire run (faults, so the reclaimer resends) and the outcome feed is recorded below the SDK, mapped to the IAM
 * action, resource ARN and condition keys AWS would authorize, and held against the synthesized template's
 * policies for that function with an IAM policy simulator; so is each SDK call a deploy-time custom resource makes (the SMS spend limit),
 * read from the template. Both ways fail: a call its role does not allow (AccessDenied at the first real send,
 * or a failed deploy), and a grant no call uses.
 */

const AT: Deployment = { partition: 'aws', region: LOCAL_REGION, account: '123456789012' };

/**
 * Functions the runs do not invoke, each with why; their grants are not checked here. Any other function in
 * the template must be invoked by a run, or make the SDK calls of a custom resource (deploy-time-calls.ts), or
 * this test fails naming it.
 */
const NOT_RUN: readonly { readonly id: RegExp; readonly why: string }[] = [
  { id: /^AWS[0-9a-f]{32}$/, why: "CDK's AwsCustomResource singleton: a deploy-time call whose policy CDK writes from the call itself" },
  { id: /^LogRetention/, why: "CDK's log retention provider, deploy time" },
];

/**
 * Grants CDK's L2 grants add that neither the code nor Lambda's pollers use, each with why it is kept: the
 * check names them, and a change that removes one may shorten this list.
 */
const CDK_EXTRAS: readonly { readonly grant: RegExp; readonly why: string }[] = [
  { grant: /: sqs:GetQueueUrl on /, why: 'grantConsumeMessages and grantSendMessages add it; every call here names the queue by its URL' },
  {
    grant: /: sqs:GetQueueAttributes on \S*Failed/,
    why: "lambda-destinations' SqsDestination grants grantSendMessages; Lambda only sends to the on-failure queue",
  },
  {
    grant: /^status .*: sqs:ChangeMessageVisibility on \S*(SesEvents|EndUserMessagingSmsEvents)/,
    why: "SqsEventSource grants grantConsumeMessages (SES's and End User Messaging's events queues); the status function never defers a record (its failures go back by ReportBatchItemFailures)",
  },
];

/**
 * Grants for a path the runs do not take, each with why the code needs it. A lane's sender sends whatever class a
 * producer puts on its queue (the event topic routes by class, but nothing stops a producer writing a queue
 * directly), so each sender holds both lanes' configuration sets; the runs route every event by its class.
 * The reclaimer resends a bulk class only if the class resends (the default marketing class gives up).
 */
const PATHS_NOT_RUN: readonly { readonly grant: RegExp; readonly why: string }[] = [
  { grant: /^sender:urgent .*: ses:SendEmail on \S*:configuration-set\/\S*-bulk /, why: 'a bulk-class event on the urgent queue' },
  { grant: /^sender:bulk .*: ses:SendEmail on \S*:configuration-set\/notifier-local /, why: 'an urgent-class event on the bulk queue' },
  { grant: /^reclaimer .*: ses:SendEmail on \S*:configuration-set\/\S*-bulk /, why: 'a stack whose bulk class resends after an ambiguous send' },
  // SNS is asked about an opt-out before a bulk-class text only (DeliveryProvider.optedOut).
  { grant: /^sender:urgent .*: sns:CheckIfPhoneNumberIsOptedOut /, why: 'a bulk-class text on the urgent queue' },
  { grant: /^reclaimer .*: sns:CheckIfPhoneNumberIsOptedOut /, why: 'a stack whose bulk class resends a text after an ambiguous send' },
];

/**
 * Calls the Lambdas make that the local wiring does not: each function's cold start reads the SES account
 * (ses:GetAccount, functions/delivery/on-demand-sending.ts), while local/lambda-wiring.ts builds the send-rate
 * governor from the configured rates alone. Held against the role like a recorded call.
 */
const COLD_START_CALLS: readonly { readonly fn: RegExp; readonly action: string; readonly resource: string }[] = [
  { fn: /^(sender:|reclaimer$)/, action: 'ses:GetAccount', resource: '*' },
];

interface RecordedRun {
  readonly name: string;
  readonly stack: LocalStack;
  readonly calls: readonly RecordedCall[];
  readonly lanes: readonly LocalLane[];
  /** Which functions this run counts in the unused-grant direction. */
  readonly judgesUnused: (fn: string) => boolean;
  /** Names the run gave resources no lane's environment names, by construct. @default none */
  readonly names?: (notifier: NotifierStack['notifier']) => ReadonlyMap<IConstruct, string>;
  /** Names the template writes as text (not a Ref), each with the one the run used. @default none */
  readonly literals?: (notifier: NotifierStack['notifier']) => ReadonlyMap<string, string>;
  /** Whether the unused-grant direction reads this run's stack's grants (its calls count for every stack's). */
  readonly grantsJudged: boolean;
}

const LOCAL_APNS_ENDPOINT = 'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/shop-app/5e6f7a8b-aaaa-bbbb-cccc-1234567890ab';

/** A zone where it is about noon now: a marketing message there is outside quiet hours whenever the test runs. */
function middayZone(): string {
  const offset = 12 - new Date().getUTCHours();
  return offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

/**
 * What the example stream does not send the bulk lane: a marketing text and an APNS push (both channels of the
 * lane's sender), and an invalid marketing event (the lane's own dead-letter queue).
 */
const BULK_LANE_LINES = (): string[] => [
  JSON.stringify(
    weeklyOffersEvent({
      eventId: 'evt-iam-bulk-channels',
      occurredAt: new Date().toISOString(),
      recipients: [
        { recipientId: 'iam-1', phone: '+447700900199', timeZone: middayZone(), channels: ['sms'] },
        { recipientId: 'iam-2', pushEndpointArn: LOCAL_APNS_ENDPOINT, timeZone: middayZone(), channels: ['push'] },
      ],
    }),
  ),
  JSON.stringify({ eventId: 'evt-iam-invalid-marketing', messageClass: 'marketing', occurredAt: new Date().toISOString() }),
];

const runs: RecordedRun[] = [];
/** The ledger the outcome feed run writes (dynalite, per file). */
const outcomeLedger = useTestLedger();
/** The bus name the outcome feed rig's publisher puts events on (test/local/outcome-feed-rig.ts). */
const OUTCOME_FEED_BUS = 'notifier-outcomes';
/** What the reclaimer's run in each local run did. */
const reclaimed: unknown[] = [];
/** The reclaimer's text row in a local run, read right after its run. */
interface ReclaimedText {
  readonly state: string;
  readonly providerMessageId: string | undefined;
}
/** The reclaimer's text row after its run, by run name (the local run's and the End User Messaging run's). */
const reclaimedTexts = new Map<string, ReclaimedText | undefined>();
/** The local run (texts through SNS). */
const LOCAL_RUN = 'local run (npm start)';
/** The local run texting through End User Messaging. */
const EUM_RUN = 'local run through End User Messaging (npm start -- --sms-provider end-user-messaging)';
/** A device of the local stack's push application (LOCAL_STACK's pushPlatformApplications). */
const LOCAL_PUSH_ENDPOINT = 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab';

/**
 * `npm start`'s run, recorded: the example stream and {@link BULK_LANE_LINES}, then the reclaimer's work (rows a
 * sender claimed and died on: an e-mail, an SMS, two pushes, stale) and one reclaimer run before it stops.
 */
async function recordLocalRun(
  smsProvider: 'sns' | 'end-user-messaging',
): Promise<{ calls: readonly RecordedCall[]; lanes: readonly LocalLane[]; reclaimed: unknown; reclaimedText: ReclaimedText | undefined }> {
  const recorder = new AwsCallRecorder();
  let lanes: readonly LocalLane[] = [];
  let reclaimed: unknown;
  let reclaimedText: ReclaimedText | undefined;
  try {
    await runLocal({
      lines: [...rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now()), ...BULK_LANE_LINES()],
      ...EXAMPLE_RUN,
      smsProvider,
      out: () => undefined,
      err: () => undefined,
      onStarted: (_aws, started) => {
        lanes = started;
      },
      beforeStop: async () => {
        const lane = lanes[0]!;
        const event = orderShippedEvent({ eventId: 'evt-iam-reclaimer', occurredAt: new Date().toISOString() });
        const recipients = [
          ...event.recipients.map((r) => (r.pushEndpointArn ? { ...r, pushEndpointArn: LOCAL_PUSH_ENDPOINT } : r)),
          { recipientId: 'iam-apns', pushEndpointArn: LOCAL_APNS_ENDPOINT, channels: ['push' as const] },
        ];
        const ledger = createLedger(lane.config);
        const seeded = await seedDeadClaims(ledger, { ...event, recipients }, Date.now() - 10 * 60_000);
        reclaimed = await runAsFunction('reclaimer', () => lane.wiring.createReclaimer!(new ExecutionEnvironment('iam-reclaimer')).run());
        // The text's row as the reclaimer left it: SENT with the provider's id only if the provider answered its send.
        const text = seeded.find((row) => row.channel === 'sms');
        const row = text && (await ledger.get(text.key));
        reclaimedText = row && { state: row.state, providerMessageId: row.providerMessageId };
      },
    });
  } finally {
    recorder.stop();
  }
  return { calls: recorder.calls, lanes, reclaimed, reclaimedText };
}

beforeAll(async () => {
  const local = await recordLocalRun('sns');
  reclaimed.push(local.reclaimed);
  reclaimedTexts.set(LOCAL_RUN, local.reclaimedText);
  runs.push({ name: LOCAL_RUN, stack: LOCAL_STACK, calls: local.calls, lanes: local.lanes, judgesUnused: () => true, grantsJudged: true });

  // The same run texting through End User Messaging: the senders' and the reclaimer's SendTextMessage, and the
  // status function reading End User Messaging's events (configuration set -> topic -> queue) into the ledger.
  const eum = await recordLocalRun('end-user-messaging');
  reclaimed.push(eum.reclaimed);
  reclaimedTexts.set(EUM_RUN, eum.reclaimedText);
  runs.push({
    name: EUM_RUN,
    stack: localStackThroughEndUserMessaging(),
    calls: eum.calls,
    lanes: eum.lanes,
    judgesUnused: () => true,
    grantsJudged: true,
    // The local End User Messaging knows one configuration set (LOCAL_SMS_CONFIGURATION_SET); synth names the stack's.
    literals: (notifier) => new Map([[notifier.endUserMessaging!.configurationSetName, LOCAL_SMS_CONFIGURATION_SET]]),
  });

  const wire = new AwsCallRecorder();
  let wireLanes: readonly LocalLane[] = [];
  try {
    // Lost and late answers leave PENDING rows behind, which the reclaimer then resends; refusals (throttling)
    // make the senders back off (ChangeMessageVisibility).
    await runWireSimulation({ events: 40, seed: 3, faults: { ...wireFaults(0), loseResponse: 0.1, providerHang: 0.1, providerRefusal: 0.25 }, onLanes: (lanes) => (wireLanes = lanes) });
  } finally {
    wire.stop();
  }
  runs.push({ name: 'wire run (simulate --wire)', stack: wireStack(), calls: wire.calls, lanes: wireLanes, judgesUnused: () => true, grantsJudged: false });

  // The outcome feed: ledger writes through the local stream to the real publisher and the local bus.
  const feedRecorder = new AwsCallRecorder();
  try {
    const feed = await startOutcomeFeed(outcomeLedger);
    try {
      await sendAndDeliver(feed.ledger);
      await feed.mapping.drain();
    } finally {
      await feed.stop();
    }
  } finally {
    feedRecorder.stop();
  }
  runs.push({
    name: 'outcome feed run',
    stack: LOCAL_STACK,
    calls: feedRecorder.calls,
    lanes: [],
    judgesUnused: () => true,
    grantsJudged: false,
    names: (notifier) => new Map([[notifier.outcomeEventBus, OUTCOME_FEED_BUS]]),
  });
}, 420_000);

/** The stack a run deployed, synthesized (the handlers' code is not what is checked, so not bundled). */
function synthesized(stack: LocalStack): { template: TemplateJson; notifier: NotifierStack['notifier'] } {
  const entries = { senderEntry: STUB_ENTRY, reclaimerEntry: STUB_ENTRY, statusEntry: STUB_ENTRY, outcomesEntry: STUB_ENTRY, fallbackEntry: STUB_ENTRY };
  const built = new NotifierStack(newApp(), 'Iam', { notifier: { ...stack.props, ...entries } });
  return { template: Template.fromStack(built).toJSON() as TemplateJson, notifier: built.notifier };
}

/** Each local function name's template function. */
function functionNames(notifier: NotifierStack['notifier']): Map<string, IConstruct> {
  return new Map<string, IConstruct>([
    ...notifier.lanes.map((lane) => [`sender:${lane.name}`, lane.senderFunction] as const),
    ['reclaimer', notifier.reclaimerFunction],
    ['status', notifier.statusFunction],
    ['outcomes', notifier.outcomeEvents.fn],
    // The construct has no property of its own (lib/notifier.ts is at its size limit); the cdk tests find it so too.
    ['fallback', notifier.channelFallback.fn],
  ]);
}

/** What each template resource a lane's environment names is called in the run: its variables, synth's and the run's. */
function physicalNames(template: TemplateJson, notifier: NotifierStack['notifier'], lanes: readonly LocalLane[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const lane of lanes) {
    const fn = notifier.lanes.find((l) => l.name === lane.name)?.senderFunction;
    if (!fn) continue;
    const variables = (template.Resources[logicalId(fn)]?.Properties?.['Environment'] as { Variables: Record<string, unknown> }).Variables;
    for (const [name, value] of Object.entries(variables)) {
      const ref = typeof value === 'object' && value !== null ? (value as { Ref?: unknown }).Ref : undefined;
      const local = lane.environment[name];
      if (typeof ref !== 'string' || !local) continue;
      names.set(ref, local.startsWith('http') ? (local.split('/').pop() ?? local) : local);
    }
  }
  return names;
}

interface Judged {
  readonly unrun: string[];
  readonly denied: string[];
  readonly grants: Grant[];
  readonly used: Set<string>;
  readonly requestsByFunction: Map<string, IamRequest[]>;
}

/** The name a custom resource's function goes by in the check's messages (with its logical id). */
const DEPLOY_TIME = 'deploy-time call';

const judged = new Map<RecordedRun, Promise<Judged>>();
const judge = (run: RecordedRun): Promise<Judged> => judged.get(run) ?? judged.set(run, judgeRun(run)).get(run)!;

async function judgeRun(run: RecordedRun): Promise<Judged> {
  const { template, notifier } = synthesized(run.stack);
  const names = physicalNames(template, notifier, run.lanes);
  for (const [construct, name] of run.names?.(notifier) ?? []) names.set(logicalId(construct), name);
  const resolver = new TemplateResolver(template, AT, names, run.literals?.(notifier));
  const byLogicalId = new TemplateResolver(template, AT, new Map());
  const byName = functionNames(notifier);
  const idToName = new Map([...byName].map(([name, construct]) => [logicalId(construct), name]));
  const requestsByFunction = new Map<string, IamRequest[]>();
  for (const call of run.calls) {
    const list = requestsByFunction.get(call.fn) ?? requestsByFunction.set(call.fn, []).get(call.fn)!;
    list.push(...iamRequestsOf(call, AT));
  }
  const result: Judged = { unrun: [], denied: [], grants: [], used: new Set(), requestsByFunction };
  for (const id of functionsOf(template)) {
    if (NOT_RUN.some((n) => n.id.test(id))) continue;
    // A custom resource's function: the SDK calls the template asks it to make at deploy time.
    const deployTime = idToName.has(id) ? [] : deployTimeRequests(template, id, DEPLOY_TIME);
    if (deployTime.length > 0 && requestsByFunction.has(DEPLOY_TIME)) throw new Error(`a second deploy-time function (${id}): give each its own name`);
    if (deployTime.length > 0) requestsByFunction.set(DEPLOY_TIME, deployTime);
    const name = deployTime.length > 0 ? DEPLOY_TIME : idToName.get(id);
    if (!name || !requestsByFunction.has(name)) {
      result.unrun.push(`${id} (${name ?? 'no local name'})`);
      continue;
    }
    const grants = grantsOf(template, id, resolver);
    const coldStart = COLD_START_CALLS.filter((c) => c.fn.test(name)).map((c) => ({ fn: name, action: c.action, resource: c.resource, context: {}, call: 'cold start' }));
    const requests = [...(requestsByFunction.get(name) ?? []), ...coldStart, ...platformRequests(template, id, resolver, name, AT)];
    result.denied.push(...(await deniedRequests(name, grants, requests, AT)));
    if (run.judgesUnused(name)) {
      const use = await grantUse(name, grants, grantsOf(template, id, byLogicalId), requests, AT);
      result.grants.push(...use.all.filter((grant) => ![...CDK_EXTRAS, ...PATHS_NOT_RUN].some((known) => known.grant.test(grant.message))));
      for (const key of use.used) result.used.add(key);
    }
  }
  return result;
}

describe('the first deploy\'s permissions, from the calls the functions make', () => {
  it('every function in the template is run by one of the runs (or listed as not run, with why)', async () => {
    const unrun = await Promise.all(runs.map(async (run) => new Set((await judge(run)).unrun)));
    const inNone = [...(unrun[0] ?? [])].filter((fn) => unrun.every((set) => set.has(fn)));
    expect(inNone.join('\n'), 'functions no run invokes').toBe('');
  }, 120_000);

  it('the reclaimer resent the stale rows it was given in each local run (its calls are recorded)', () => {
    expect(reclaimed, JSON.stringify(reclaimed)).toMatchObject([
      { found: 5, resent: 5, leftPending: 0 },
      { found: 5, resent: 5, leftPending: 0 },
    ]);
  });

  it.each([LOCAL_RUN, EUM_RUN])("%s: the provider answered the reclaimer's text (its row SENT with the provider's message id)", (name) => {
    // A SendTextMessage that reaches a closed endpoint is recorded as a call all the same: only the provider's
    // answer shows the check held the reclaimer's real, accepted call against its role (runLocal once stopped the
    // local End User Messaging before its beforeStop ran the reclaimer).
    expect(reclaimedTexts.get(name)).toEqual({ state: 'SENT', providerMessageId: expect.stringMatching(/\S/) });
  });

  it.each([0, 1, 2, 3])('run %i: every recorded call is allowed by its function\'s role', async (index) => {
    const run = runs[index]!;
    expect((await judge(run)).denied.join('\n'), run.name).toBe('');
  }, 120_000);

  it('every grant is used by a call of one of the runs (least privilege)', async () => {
    // The grants of the local run's stack (texts through SNS) and of the End User Messaging run's (the wire stack's
    // differ from the local one only in its push application and SMS countries); a call of any run uses a grant
    // the stacks share (grants are compared by logical id).
    const all = await Promise.all(runs.map((run) => judge(run)));
    const used = new Set(all.flatMap((j) => [...j.used]));
    const unused = all
      .filter((_, index) => runs[index]!.grantsJudged)
      .flatMap((j) => j.grants)
      .filter((grant) => !used.has(grant.key))
      .map((grant) => grant.message);
    expect([...new Set(unused)].join('\n')).toBe('');
  }, 120_000);

  it('texts through End User Messaging in the End User Messaging run, from the senders, the reclaimer and the status function', async () => {
    const { requestsByFunction } = await judge(runs.find((run) => run.name === EUM_RUN)!);
    const texts = [...requestsByFunction].filter(([, requests]) => requests.some((r) => r.action === 'sms-voice:SendTextMessage')).map(([fn]) => fn);
    expect(texts.sort()).toEqual(['reclaimer', 'sender:bulk', 'sender:urgent']);
    expect(requestsByFunction.get('status')?.some((r) => r.action === 'dynamodb:UpdateItem')).toBe(true);
  }, 120_000);

  it('holds the SMS spend limit\'s deploy-time call (SNS\'s and End User Messaging\'s) against its function\'s role', async () => {
    const actions = await Promise.all(
      [runs[0]!, runs.find((run) => run.name === EUM_RUN)!].map(async (run) => (await judge(run)).requestsByFunction.get(DEPLOY_TIME)?.map((r) => r.action)),
    );
    expect(actions).toEqual([
      ['sns:SetSMSAttributes', 'sns:SetSMSAttributes'],
      ['sms-voice:SetTextMessageSpendLimitOverride', 'sms-voice:SetTextMessageSpendLimitOverride'],
    ]);
  }, 120_000);
});
