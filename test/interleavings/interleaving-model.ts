import fc, { type Scheduler } from 'fast-check';
import { vi } from 'vitest';
import { Duration } from 'aws-cdk-lib';
import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import type { Channel } from '../../functions/core/idempotency-key';
import type { Claim, LedgerRow } from '../../functions/core/ledger-record';
import { pendingShardOf } from '../../functions/core/ledger-table';
import { silentLog } from '../../functions/core/log-port';
import { countDigest, scopeCounts } from '../../functions/core/message-limits';
import { METRIC } from '../../functions/core/metric-names';
import { InMemoryMetrics } from '../../functions/core/metrics-recorder';
import type { NotificationEvent } from '../../functions/core/notification-event';
import type { StalePendingSource } from '../../functions/core/stale-pending';
import { laneOfMessageClass, type LaneName } from '../../functions/core/send-lanes';
import { laneDelivery } from '../../functions/delivery/lambda-delivery-context';
import { createReclaimer } from '../../functions/reclaimer/create-reclaimer';
import { deliver as deliverPlan, FRESH_CLAIM, type DeliveryContext } from '../../functions/delivery/deliver-message';
import { KeptLedgerWrites, type KeptLedgerWrite } from '../../functions/delivery/kept-ledger-writes';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import { createStatusHandler } from '../../functions/status/create-status-handler';
import { laneSenderConfigs, resolveLocalStack, type LocalStack } from '../../local/local-stack';
import { mulberry32 } from '../../local/prng';
import { eumEvent, sqsEvent } from '../status/eum-fixtures';
import { cloudWatchLogsEvent, sesEvent, smsDeliveryLogLine, snsEvent } from '../status/status-fixtures';
import { lambdaContext } from '../support/sqs-event';
import { checkHistory, checkSettledAfterOneReclaim, type Violation } from './history-checker';
import { checkLimits, type CounterWindowSeen, type LimitedMessage } from './limit-checker';
import { PortGates } from './port-gates';
import { environmentOf, LedgerNetwork, type LedgerWireFault, type LedgerWireRecord } from './scheduled-ledger-transport';
import { ScriptedProviders, type ProviderAnswer } from './scripted-provider';

/**
 * The stack the model runs, as a team would deploy it: both lanes, `otp` limited to 1 message per address
 * and 2 per recipient an hour (a few login codes to one person meet the limits in some schedules and not in
 * others), a 60 s function and 2 s send timeout. Marketing keeps its built-in 1 per recipient, channel and
 * template a day; transactional its 50 an hour (never reached). Each lane's workers run with the sender
 * configuration its cold start loads from the environment synth writes for that lane (local/local-stack.ts).
 */
export const MODEL_STACK: LocalStack = {
  props: {
    emailFrom: 'notifications@mail.shop-notifier.dev',
    functionTimeout: Duration.seconds(60),
    sendTimeout: Duration.seconds(2),
    messageClasses: [
      {
        name: 'otp',
        onAmbiguous: 'resend',
        lookupFallback: 'resend',
        evidenceWaitSeconds: 0,
        evidenceWindowSeconds: 30,
        smsType: 'Transactional',
        limits: [
          { scope: 'address', max: 1, windowSeconds: 3600 },
          { scope: 'recipient', max: 2, windowSeconds: 3600 },
        ],
      },
    ],
  },
};
const STACK = resolveLocalStack(MODEL_STACK);
/** Each lane's sender configuration, loaded from its environment as its cold start loads it. */
const LANE_CONFIGS = laneSenderConfigs(STACK);
/** The urgent lane's: the reclaimer's too, as the stack gives it that lane's environment. */
const FIRST_LANE = STACK.lanes[0]!.name;
const RECLAIMER_CONFIG = LANE_CONFIGS.get(FIRST_LANE)!;
export const CLAIM_TIMEOUT_MS = RECLAIMER_CONFIG.claimTimeoutMs;
/** Lambda kills an invocation after this; the claim timeout exceeds it (a timing invariant checked at synth and cold start). */
export const FUNCTION_TIMEOUT_MS = RECLAIMER_CONFIG.functionTimeoutMs;
const TIMING = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RECLAIMER_CONFIG.retentionMs };
/** Schedule n starts n days after this: its limit windows (an hour, a day) are its own, on the table all schedules share. */
const FIRST_START_MS = Date.parse('2026-11-29T12:00:00.000Z');
const DAY_MS = 86_400_000;
const CLASSES = RECLAIMER_CONFIG.messageClasses;
const EVIDENCE_WAIT_MS = (CLASSES.get('transactional')?.evidenceWaitSeconds ?? 300) * 1000;
/** Sender workers (execution environments) per lane. */
export const WORKERS_PER_LANE = 2;
/** Every worker's lane, by global worker number: each lane's workers side by side, the urgent lane's first. */
const WORKER_LANES: readonly (LaneName | 'single')[] = STACK.lanes.flatMap(({ name }) => Array.from({ length: WORKERS_PER_LANE }, () => name));
export const WORKERS = WORKER_LANES.length;

/** The messages of every schedule: two of each class, over every channel, and two more login codes by SMS to the same number. */
const MESSAGE_SHAPES: readonly { readonly messageClass: string; readonly channel: Channel; readonly templateId: string; readonly data: Record<string, unknown> }[] = [
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '482913', expiresInMinutes: 10 } },
  { messageClass: 'otp', channel: 'email', templateId: 'login-code', data: { code: '771204', expiresInMinutes: 10 } },
  { messageClass: 'transactional', channel: 'email', templateId: 'order-shipped', data: { orderId: '1001', carrier: 'DHL', trackingNumber: 'JD01' } },
  { messageClass: 'transactional', channel: 'sms', templateId: 'order-shipped', data: { orderId: '1002', carrier: 'UPS', trackingNumber: 'JD02' } },
  { messageClass: 'marketing', channel: 'email', templateId: 'weekly-offers', data: { headline: 'Half price', url: 'https://shop.example/offers' } },
  { messageClass: 'marketing', channel: 'push', templateId: 'weekly-offers', data: { headline: 'Half price', url: 'https://shop.example/offers' } },
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '305117', expiresInMinutes: 10 } },
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '918240', expiresInMinutes: 10 } },
];
export const MESSAGE_COUNT = MESSAGE_SHAPES.length;

/**
 * Half the schedules text through End User Messaging (its events carry the key and claim version, and classes wait
 * their evidence windows), half through SNS (its logs name SNS's id only).
 */
export type SmsProviderKind = 'sns' | 'end-user-messaging';

/** A clock jump: within an invocation, past Lambda's timeout, past the claim lease, past the evidence wait. */
export type ClockJump = 'small' | 'function-timeout' | 'lease' | 'evidence-wait';
const JUMP_MS: Readonly<Record<ClockJump, number>> = {
  small: 1_000,
  'function-timeout': FUNCTION_TIMEOUT_MS + 1,
  lease: CLAIM_TIMEOUT_MS + 1,
  'evidence-wait': EVIDENCE_WAIT_MS + 1,
};

export interface Delivery {
  readonly message: number;
  /** Which of its lane's workers receives it (0 to WORKERS_PER_LANE - 1): the event topic routes a message into its lane. */
  readonly worker: number;
  readonly readBeforeClaim: boolean;
  /** The delivery's invocation dies when its n-th gate is released. @default never */
  readonly crashAt?: number;
  /**
   * Whether the invocation's death takes its execution environment with it (a timeout, an
   * out-of-memory: Lambda starts a new one, whose kept writes are empty) or not (an error thrown:
   * the environment serves the worker's next delivery with its memory). @default false
   */
  readonly losesEnvironment?: boolean;
  /** Rounds of "before returning" retries of the environment's kept writes (createSenderHandler's writeUntil). @default 0 */
  readonly retryRounds?: number;
}

export type WorldEvent =
  | { readonly kind: 'clock'; readonly jump: ClockJump }
  | { readonly kind: 'outage' }
  /** A ledger outage that lasts past a claim's lease: a claim kept through it is stale when the ledger comes back. */
  | { readonly kind: 'outage-across-lease' }
  /**
   * SQS delivers `message` to the `worker`-th worker of its lane; the first of the lane's environments whose claim of it
   * executes then loses its link to DynamoDB while every other actor keeps its own. A lease passes before the link is
   * back, and SQS delivers the message to the lane's other worker and to this one again meanwhile. So the writes it
   * keeps meet a row another environment took over and may still hold: its next invocation's kept writes fail, and its
   * delivery then reads the row under another owner's live claim.
   */
  | { readonly kind: 'partition'; readonly message: number; readonly worker: number }
  | { readonly kind: 'reclaimer'; readonly crashAt?: number }
  | { readonly kind: 'evidence'; readonly message: number }
  /** The worker's environment (any lane's, by global number) is invoked for other work (other records of its batch): it makes its kept writes first. */
  | { readonly kind: 'invocation'; readonly worker: number };

/** One schedule's inputs besides the scheduler's own choices. */
export interface Scenario {
  /** Which of the message shapes this schedule sends (indexes into the eight). */
  readonly messages: readonly number[];
  /** SQS deliveries: every message at least once, some twice or more (at-least-once), in the order each worker receives them. */
  readonly deliveries: readonly Delivery[];
  readonly events: readonly WorldEvent[];
  /** Ledger request attempts (by global number) the network mistreats. */
  readonly ledgerFaults: readonly (readonly [number, LedgerWireFault])[];
  /** Provider calls (by global number) that do not simply accept. */
  readonly providerFaults: readonly (readonly [number, Exclude<ProviderAnswer, 'accept'>])[];
  /** Which service texts. */
  readonly smsProvider: SmsProviderKind;
}

/** One invocation in four dies at one of its awaits. */
const crashAt = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }) });
const delivery = (message: fc.Arbitrary<number>) =>
  fc
    .record({ message, worker: fc.nat(WORKERS_PER_LANE - 1), readBeforeClaim: fc.boolean(), crashAt, losesEnvironment: fc.boolean(), retryRounds: fc.nat(2), order: fc.nat(99) })
    .map(withoutUndefined);

const scenarioFor = (messages: readonly number[]): fc.Arbitrary<Scenario> =>
  fc.record({
    messages: fc.constant(messages),
    deliveries: fc
      .tuple(...messages.map((m) => fc.array(delivery(fc.constant(m)), { minLength: 1, maxLength: 3 })))
      // A redelivery may reach a worker before the first delivery of another message.
      .map((perMessage) => perMessage.flat().sort((a, b) => a.order - b.order).map(({ order: _order, ...d }) => d)),
    events: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('clock' as const), jump: fc.constantFrom<ClockJump>('small', 'function-timeout', 'lease', 'evidence-wait') }),
        // Twice as likely as the others: an outage between a claim and its release or outcome is what makes an environment keep writes.
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('outage' as const) }) },
        fc.record({ kind: fc.constant('outage-across-lease' as const) }),
        fc.record({ kind: fc.constant('partition' as const), message: fc.constantFrom(...messages), worker: fc.nat(WORKERS_PER_LANE - 1) }),
        fc.record({ kind: fc.constant('reclaimer' as const), crashAt }).map(withoutUndefined),
        fc.record({ kind: fc.constant('evidence' as const), message: fc.constantFrom(...messages) }),
        fc.record({ kind: fc.constant('invocation' as const), worker: fc.nat(WORKERS - 1) }),
      ),
      { maxLength: 6 },
    ),
    ledgerFaults: fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.constantFrom<LedgerWireFault>('lose-response', 'late-copy', 'cut-off')), {
      maxLength: 5,
    }),
    providerFaults: fc.array(
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom<Exclude<ProviderAnswer, 'accept'>>('throttle', 'reject', 'accept-answer-lost', 'lost-before')),
      { maxLength: 4 },
    ),
    smsProvider: fc.constantFrom<SmsProviderKind>('sns', 'end-user-messaging'),
  });

/** Two to eight of the messages per schedule: fewer messages, more contention on each. */
export const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .subarray(Array.from({ length: MESSAGE_COUNT }, (_, i) => i), { minLength: 2 })
  .chain(scenarioFor);

/** What one schedule did and what the checker found. */
export interface ScheduleResult {
  readonly violations: readonly Violation[];
  /** The gates in the order the scheduler released them. */
  readonly schedule: readonly string[];
  /** Faults injected, by kind. */
  readonly faults: ReadonlyMap<string, number>;
  /** What the schedule exercised of the kept writes and the limits (the actors' own counts: coverage, never checked). */
  readonly exercised: ReadonlyMap<string, number>;
  /** Resends after a recorded ambiguity that the class permits: counted, not violations. */
  readonly permittedResends: number;
  readonly rows: readonly LedgerRow[];
}

export interface LedgerServer {
  readonly tableName: string;
  readonly endpoint: string;
  /** A ledger outside the schedule, for the checker's reads. */
  readonly ledger: Pick<DynamoDbLedger, 'get'>;
  /** The production request handler every actor's client sends through (kept across schedules: warm sockets). */
  readonly requestHandler: NodeHttpHandler;
  /** A client outside the schedule, for the checker's reads of the limit counters. */
  readonly client: DynamoDBClient;
}

let runCounter = 0;

/** Runs one schedule end to end: the actors under faults, then recovery without faults, then the checker. */
export async function runSchedule(s: Scheduler, scenario: Scenario, server: LedgerServer): Promise<ScheduleResult> {
  // The SDK's retry back-off draws its jitter from Math.random, and which back-off ends first is now a scheduled
  // choice: the same sequence in every schedule, so a schedule replays exactly (INTERLEAVING_SEED, INTERLEAVING_PATH).
  const random = vi.spyOn(Math, 'random').mockImplementation(mulberry32(1));
  try {
    return await runOneSchedule(s, scenario, server);
  } finally {
    random.mockRestore();
  }
}

async function runOneSchedule(s: Scheduler, scenario: Scenario, server: LedgerServer): Promise<ScheduleResult> {
  runCounter += 1;
  const run = `r${runCounter}`;
  const gates = new PortGates(s);
  const network = new LedgerNetwork(gates, server.requestHandler, new Map(scenario.ledgerFaults));
  const providers = new ScriptedProviders(gates, new Map(scenario.providerFaults), () => now, network);
  const clients: DynamoDBClient[] = [];
  const START_MS = FIRST_START_MS + runCounter * DAY_MS;
  let now = START_MS;
  const clock = () => now;
  const startedAt = new Map<string, number>();
  const metrics = new InMemoryMetrics();

  const planOf = new Map(scenario.messages.map((i) => [i, planInShardZero(MESSAGE_SHAPES[i]!, `evt-${run}-m${i}`)] as const));
  const plans = [...planOf.values()];
  const keys = new Set(plans.map((p) => p.key));
  const portsOf = (actor: string) => {
    const ports = network.ledgerFor(actor, server.tableName, server.endpoint);
    clients.push(ports.client);
    return ports;
  };
  const ledgerOf = (actor: string) => portsOf(actor).ledger;
  let tokens = 0;
  let inPlaceRetries = 0;
  /**
   * The delivery context of one invocation in `lane`; a sender's carries its execution environment's kept
   * writes. The lane's settings are its sender configuration's (the urgent lane sends a throttled message
   * again in place); each pause before such a send is a step the scheduler orders, and moves the clock on.
   */
  const contextFor = (
    actor: string,
    { lane, readBeforeClaim = false, keptWrites }: { lane: LaneName | 'single'; readBeforeClaim?: boolean; keptWrites?: KeptLedgerWrites },
  ): DeliveryContext => {
    const provider = providers.forActor(actor);
    const { ledger, limitStore } = portsOf(actor);
    const config = LANE_CONFIGS.get(lane)!;
    // End User Messaging: the same scripted provider, whose texts' events carry the key (see evidence below).
    const sms = scenario.smsProvider === 'end-user-messaging' ? { send: provider.send, keyedEvidence: true } : provider;
    return {
      ledger,
      limitStore,
      ...(keptWrites ? { keptWrites } : {}),
      providers: { email: provider, sms, push: provider },
      ...laneDelivery(config),
      sleep: async (ms) => {
        await gates.pass(actor, `throttled: pause ${ms} ms, then send again in place`);
        inPlaceRetries += 1;
        jump(ms);
      },
      metrics,
      log: silentLog,
      clock,
      // The invocation's deadline on the model's clock too: a jump during a pause leaves no time for the retry.
      realTime: clock,
      newOwnerToken: () => `${actor}-t${(tokens += 1)}`,
      timing: TIMING,
      sendTimeoutMs: config.sendTimeoutMs,
      readBeforeClaim,
    };
  };
  /**
   * Starts an actor; it is killed by Lambda's timeout once the model clock passes it. An invocation
   * that fails (the reclaimer's index query or the status Lambda on a ledger error: Lambda retries
   * them) counts as crashed.
   */
  const startActor = <T>(actor: string, work: () => Promise<T>): Promise<T | 'crashed'> => {
    startedAt.set(actor, now);
    const done = gates.start(actor, work).catch(() => 'crashed' as const);
    return Promise.race([done, gates.whenCrashed(actor).then(() => 'crashed' as const)]);
  };
  let clockJumps = 0;
  const jump = (ms: number) => {
    now += ms;
    if (ms > CLAIM_TIMEOUT_MS) network.leasePassed();
    for (const [actor, at] of startedAt) if (at + FUNCTION_TIMEOUT_MS <= now) gates.crash(actor);
  };

  /**
   * One execution environment per worker, serving its invocations one at a time (as Lambda does),
   * with its memory of the ledger writes it owes. An invocation whose death takes the environment
   * with it leaves a new, empty one for the worker's next delivery.
   */
  const metOthersClaim = { any: 0, live: 0 };
  const newKeptWrites = () =>
    new ObservedKeptWrites((row) => {
      metOthersClaim.any += 1;
      if (row.lastRelease === undefined && (row.leaseExpiresAt ?? 0) > now) metOthersClaim.live += 1;
    });
  const environments = WORKER_LANES.map((lane) => ({ lane, keptWrites: newKeptWrites(), queue: Promise.resolve() as Promise<unknown> }));
  /** The global number of the worker a delivery names: its message's lane's `worker`-th. */
  const workerOf = (message: number, worker: number) =>
    WORKER_LANES.indexOf(laneOfMessageClass(MESSAGE_SHAPES[message]!.messageClass, STACK.bulkClasses)) + (worker % WORKERS_PER_LANE);
  let environmentsLost = 0;
  let environmentsLostHolding = 0;
  /**
   * One invocation, as createSenderHandler runs it: the kept writes first, the delivery (none: an
   * invocation for other records), then the optional retries before returning.
   */
  const invoke = (d: Omit<Delivery, 'message'> & { readonly message?: number }, worker: number, actor: string) => {
    const environment = environments[worker]!;
    const keptWrites = environment.keptWrites;
    const ctx = contextFor(actor, { lane: environment.lane, readBeforeClaim: d.readBeforeClaim, keptWrites });
    const keptContext = { ...ctx, concurrency: 4 };
    return startActor(actor, async () => {
      await keptWrites.writeAll(keptContext);
      const result = d.message === undefined ? undefined : await deliverPlan(planOf.get(d.message)!, FRESH_CLAIM, ctx);
      // writeUntil's rounds (a second apart in real time), each released by the scheduler.
      for (let round = 0; round < (d.retryRounds ?? 0) && keptWrites.size > 0; round += 1) {
        await gates.pass(actor, 'retry kept writes before returning');
        await keptWrites.writeAll(keptContext);
      }
      return result;
    }).then((result) => {
      if (result === 'crashed' && d.losesEnvironment && environment.keptWrites === keptWrites) {
        if (keptWrites.size > 0) environmentsLostHolding += 1;
        environment.keptWrites = newKeptWrites();
        environmentsLost += 1;
      }
      return result;
    });
  };
  const redeliveries = new Map<number, number>();
  /** Queues an invocation on a worker's environment (by global number), after the invocations before it. */
  const enqueue = (d: Parameters<typeof invoke>[0], worker: number, actor: string) => {
    const environment = environments[worker]!;
    const done = environment.queue.then(() => invoke(d, worker, actor));
    environment.queue = done;
    return done;
  };
  const deliver = (d: Delivery, actor: string): Promise<void> =>
    enqueue(d, workerOf(d.message, d.worker), actor).then((result) => {
      if (result === undefined) return;
      // SQS delivers an unsettled record again (visibility timeout), here up to twice per message while faults last.
      const n = redeliveries.get(d.message) ?? 0;
      if ((result !== 'crashed' && result.settled) || n >= 2 || !faultsOn) return;
      redeliveries.set(d.message, n + 1);
      const why = result === 'crashed' ? 'crashed' : result.why;
      const worker = (d.worker + 1 + n) % WORKERS_PER_LANE;
      const again = `w${workerOf(d.message, worker)}.m${d.message}.r${n + 1}`;
      void gates
        .pass(`sqs.m${d.message}.r${n + 1}`, `sqs redelivers m${d.message} (${why})`)
        .then(() => deliver({ ...d, worker, crashAt: undefined, losesEnvironment: undefined }, again));
    });
  let faultsOn = true;
  const reclaim = (actor: string, crashAt?: number) => {
    if (crashAt !== undefined) gates.crashActorAt(actor, crashAt);
    const ctx = contextFor(actor, { lane: FIRST_LANE });
    const ledger = ctx.ledger as ReturnType<typeof ledgerOf>;
    return startActor(actor, () =>
      createReclaimer({
        ...ctx,
        pending: onlyKeys(ledger, keys),
        messageClasses: CLASSES,
        pendingIndexShards: 1,
        limits: { timeBudgetMs: 20_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 8 },
      }).run(),
    );
  };

  // Phase 1: the workers, the reclaimer, the status Lambda and the faults, in the scheduler's order.
  const work: Promise<unknown>[] = [];
  const byWorker = new Map<number, { d: Delivery; i: number }[]>();
  scenario.deliveries.forEach((d, i) => {
    const worker = workerOf(d.message, d.worker);
    byWorker.set(worker, [...(byWorker.get(worker) ?? []), { d, i }]);
  });
  for (const [worker, list] of byWorker) {
    work.push(
      (async () => {
        // One worker handles its deliveries one after another; a crashed invocation is replaced by a new one.
        for (const { d, i } of list) {
          const actor = `w${worker}.d${i}`;
          if (d.crashAt !== undefined) gates.crashActorAt(actor, d.crashAt);
          await gates.pass(`w${worker}`, `sqs delivers m${d.message} (d${i})`);
          await deliver(d, actor);
        }
      })(),
    );
  }
  scenario.events.forEach((event, i) => {
    const actor = `e${i}`;
    switch (event.kind) {
      case 'clock':
        work.push(
          gates.pass(actor, `clock +${event.jump}`).then(() => {
            clockJumps += 1;
            jump(JUMP_MS[event.jump]);
          }),
        );
        break;
      case 'outage':
      case 'outage-across-lease':
        work.push(
          (async () => {
            await gates.pass(actor, 'ledger down');
            network.setDown(true);
            if (event.kind === 'outage-across-lease') {
              await gates.pass(actor, 'a lease passes in the outage');
              clockJumps += 1;
              jump(JUMP_MS.lease);
            }
            await gates.pass(actor, 'ledger back');
            network.setDown(false);
          })(),
        );
        break;
      case 'partition': {
        const laneWorkers = Array.from({ length: WORKERS_PER_LANE }, (_, n) => workerOf(event.message, n));
        const cut = network.partitionAfterClaim(
          laneWorkers.map((w) => `w${w}`),
          planOf.get(event.message)!.key,
        );
        const deliverTo = (to: number, as: string, label: string) =>
          gates.pass(`${actor}.${as}`, label).then(() => enqueue({ message: event.message, worker: to % WORKERS_PER_LANE, readBeforeClaim: false, retryRounds: 1 }, to, `w${to}.${actor}${as}`));
        work.push(
          deliverTo(workerOf(event.message, event.worker), 'a', `sqs delivers m${event.message} to w${workerOf(event.message, event.worker)}`),
          (async () => {
            const environment = await cut;
            const worker = Number(environment.slice(1));
            const other = laneWorkers.find((w) => w !== worker)!;
            // Its invocation runs on, cut off, to its end (keeping what it could not write) before the lease passes:
            // a lease jump would kill it at Lambda's timeout.
            await environments[worker]!.queue;
            await gates.pass(actor, `a lease passes while ${environment} is cut off`);
            clockJumps += 1;
            jump(JUMP_MS.lease);
            // Past its visibility timeout SQS delivers the message to another worker, and to this one again; the link
            // comes back once another environment holds the row, in any order with the rest of both invocations.
            const taken = network.claimedByAnother(environment, planOf.get(event.message)!.key);
            void deliverTo(other, 'b', `sqs delivers m${event.message} to w${other}`);
            void deliverTo(worker, 'c', `sqs delivers m${event.message} to ${environment} again`);
            await taken;
            await gates.pass(actor, `${environment} reaches the ledger again`);
            network.reconnect(environment);
          })(),
        );
        break;
      }
      case 'reclaimer':
        work.push(gates.pass(actor, 'reclaimer starts').then(() => reclaim(`${actor}.reclaimer`, event.crashAt)));
        break;
      case 'evidence':
        work.push(gates.pass(actor, `evidence for m${event.message}`).then(() => evidence(`${actor}.status`, event.message)));
        break;
      case 'invocation':
        work.push(
          gates
            .pass(actor, `w${event.worker} invoked for other work`)
            .then(() => enqueue({ worker: event.worker, readBeforeClaim: false, retryRounds: 1 }, event.worker, `w${event.worker}.x${i}`)),
        );
        break;
    }
  });
  const evidence = async (actor: string, message: number) => {
    const plan = planOf.get(message)!;
    const sent = providers.acceptedFor(plan.key).at(-1);
    if (!sent || sent.channel === 'push') return; // nothing sent, or a channel without delivery events
    const at = new Date(now).toISOString();
    const input =
      sent.channel === 'email'
        ? snsEvent(sesEvent('Delivery', { key: plan.key, sesMessageId: sent.providerMessageId, mailAt: at }))
        : scenario.smsProvider === 'end-user-messaging'
          ? // End User Messaging: the text's own event, through the events queue, naming the key and the claim that sent it.
            sqsEvent(eumEvent('TEXT_DELIVERED', { key: plan.key, claimVersion: sent.claimVersion, messageId: sent.providerMessageId, at: now }))
          : cloudWatchLogsEvent([{ message: smsDeliveryLogLine(sent.providerMessageId, 'SUCCESS'), timestamp: now }]);
    const handler = createStatusHandler({ store: ledgerOf(actor), metrics, log: silentLog, clock });
    await startActor(actor, () => handler(input, lambdaContext()));
  };

  await gates.drive();

  // Phase 2: the faults stop. The queue redelivers what never reached the ledger; the reclaimer settles the rest.
  faultsOn = false;
  network.stopFaults();
  providers.stopFaults();
  // The checker reads the rows on its own client, outside the schedule.
  const readRows = async () => {
    const rows = await Promise.all(plans.map((plan) => server.ledger.get(plan.key)));
    return rows.filter((row): row is LedgerRow => row !== undefined);
  };
  const rowsBefore = await readRows();
  const withRow = new Set(rowsBefore.map((r) => r.key));
  for (const [i, plan] of planOf) {
    if (!withRow.has(plan.key)) void deliver({ message: i, worker: 0, readBeforeClaim: false }, `w${workerOf(i, 0)}.redelivery.m${i}`);
  }
  await gates.drive();
  // Copies held in the network past a lease land now, while the reclaimer takes rows over.
  jump(CLAIM_TIMEOUT_MS + 1);
  const firstRunStartedAt = now;
  void reclaim('recovery.reclaimer-1');
  // Every environment still alive is invoked again, while the reclaimer takes over what it still holds.
  for (let worker = 0; worker < WORKERS; worker += 1) void enqueue({ worker, readBeforeClaim: false }, worker, `w${worker}.recovery`);
  await gates.drive();
  if (network.releaseHeldCopies()) await gates.drive();
  const afterOneReclaim = await readRows();
  jump(EVIDENCE_WAIT_MS + 1);
  void reclaim('recovery.reclaimer-2');
  await gates.drive();
  const rows = await readRows();

  const limited = await readCounters(server, plans, rows);
  for (const client of clients) client.destroy();

  const checked = checkHistory({
    messages: plans.map((p) => ({ key: p.key, messageClass: p.messageClass, channel: p.identity.channel })),
    accepted: providers.accepted,
    rejectedKeys: providers.rejectedKeys,
    rows,
    wire: network.executed,
  });
  const violations = [
    ...checkSettledAfterOneReclaim(plans.map((p) => p.key), afterOneReclaim, CLASSES, {
      keyedEvidence: (row) => scenario.smsProvider === 'end-user-messaging' && row.channel === 'sms',
      runStartedAt: firstRunStartedAt,
    }),
    ...checked.violations,
    ...checkLimits(limited, providers.accepted, rows),
  ];
  return {
    violations,
    schedule: gates.released,
    faults: new Map([
      ...network.faults,
      ...providers.faults,
      ['worker crash at an await', gates.crashesAtAwait],
      ['invocation killed by Lambda timeout', gates.crashes - gates.crashesAtAwait],
      ['clock jump', clockJumps],
    ]),
    exercised: new Map([
      ['execution environments lost with their invocation', environmentsLost],
      ['  of those, holding kept writes', environmentsLostHolding],
      ['ledger writes kept through an outage', metrics.get(METRIC.UnsentClaimKept) + metrics.get(METRIC.OutcomeKept)],
      ['kept writes made (or claims taken back) later', metrics.get(METRIC.UnsentClaimReleased) + metrics.get(METRIC.OutcomeRecordedLater)],
      ['kept releases that found the row moved on', metrics.get(METRIC.UnsentClaimAlreadyTaken)],
      ['  of those, on a row whose current claim was another environment\'s', releasesMeetingAnotherOwner(network.executed)],
      ['deliveries that met another claim on a row whose earlier claim their environment keeps unsent', metOthersClaim.any],
      ['  of those, a claim held (not released, its lease running)', metOthersClaim.live],
      ['limit store failures (claim handed back)', metrics.get(METRIC.LimitStoreError)],
      ['SUPPRESSED rows', rows.filter((row) => row.state === 'SUPPRESSED').length],
      ['throttled sends made again in place, claim held (the urgent lane\'s pauses)', inPlaceRetries],
    ]),
    permittedResends: checked.permittedResends,
    rows,
  };
}

/**
 * An environment's kept writes, telling when a delivery asks about a row whose current claim is not the unsent one it
 * keeps for that key (another environment's, or a later one): the case `holdsUnsent` must answer no to.
 */
class ObservedKeptWrites extends KeptLedgerWrites {
  private readonly unsent: Claim[] = [];
  constructor(private readonly metAnotherClaim: (row: Partial<LedgerRow>) => void) {
    super();
  }
  override keep(entry: KeptLedgerWrite): KeptLedgerWrite | undefined {
    if (entry.kind === 'release') this.unsent.push(entry.claim);
    if (entry.kind === 'release-unconfirmed') {
      const a = entry.attempt;
      this.unsent.push(a.kind === 'claim' ? a.row : { key: a.key, ownerToken: a.fields.ownerToken, claimVersion: a.fields.claimVersion });
    }
    return super.keep(entry);
  }
  override holdsUnsent(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
    const held = super.holdsUnsent(row);
    if (!held && this.unsent.some((claim) => claim.key === row.key && super.holdsUnsent(claim))) this.metAnotherClaim(row);
    return held;
  }
}

/**
 * The message's plan, its event id suffixed until its key falls in pending-index shard 0: the
 * reclaimer then needs to query one shard (`pendingIndexShards: 1`) to see every row of the schedule.
 */
function planInShardZero(shape: (typeof MESSAGE_SHAPES)[number], eventId: string): MessagePlan {
  for (let n = 0; ; n += 1) {
    const plan = planOf(shape, `${eventId}-${n}`);
    if (pendingShardOf(plan.key) === '0') return plan;
  }
}

function planOf(shape: (typeof MESSAGE_SHAPES)[number], eventId: string): MessagePlan {
  const recipient =
    shape.channel === 'email'
      ? { recipientId: 'user-9', email: 'user9@example.com', channels: [shape.channel] }
      : shape.channel === 'sms'
        ? { recipientId: 'user-9', phone: '+14155550101', channels: [shape.channel] }
        : { recipientId: 'user-9', pushEndpointArn: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab', channels: [shape.channel] };
  const event: NotificationEvent = {
    eventId,
    occurredAt: '2026-11-29T11:59:30.000Z',
    type: 'Interleaving',
    templateId: shape.templateId,
    messageClass: shape.messageClass,
    data: shape.data,
    recipients: [recipient],
  } as NotificationEvent;
  const messageClass = CLASSES.get(shape.messageClass)!;
  const [plan] = planMessages(event, messageClass, repositoryTemplates());
  if (!plan?.prepared.ok) throw new Error(`message ${eventId} cannot be planned: ${plan?.prepared.ok === false ? plan.prepared.reason : 'none'}`);
  return plan;
}

/**
 * The windows each claimed message of the class counts in (those of its first claim, `createdAt`),
 * read back from the counter items outside the schedule.
 */
async function readCounters(server: LedgerServer, plans: readonly MessagePlan[], rows: readonly LedgerRow[]): Promise<LimitedMessage[]> {
  const createdAt = new Map(rows.map((row) => [row.key, row.createdAt]));
  const items = new Map<string, Promise<Record<string, AttributeValue> | undefined>>();
  const itemOf = (partition: string, sort: string) => {
    const id = `${partition}|${sort}`;
    let item = items.get(id);
    if (!item) {
      item = server.client
        .send(new GetItemCommand({ TableName: server.tableName, Key: { pk: { S: partition }, sk: { S: sort } }, ConsistentRead: true }))
        .then((r) => r.Item);
      items.set(id, item);
    }
    return item;
  };
  const limited: LimitedMessage[] = [];
  for (const plan of plans) {
    const at = createdAt.get(plan.key);
    if (at === undefined || !plan.prepared.ok || plan.messageClass.limits.length === 0) continue;
    const counters = scopeCounts(plan.messageClass.name, plan.messageClass.limits, { ...plan.identity, address: plan.prepared.request.message.to }, at);
    const windows: CounterWindowSeen[] = [];
    for (const counter of counters) {
      const item = await itemOf(counter.partition, counter.sort);
      for (const window of counter.windows) {
        windows.push({
          id: `${counter.partition}|${counter.sort}|${window.attribute}`,
          scope: counter.scope,
          max: window.max,
          digests: (item?.[window.attribute]?.BS ?? []).map((digest) => Buffer.from(digest).toString('hex')),
        });
      }
    }
    limited.push({ key: plan.key, digest: Buffer.from(countDigest(plan.identity.eventId)).toString('hex'), windows });
  }
  return limited;
}

/**
 * Releases that reached DynamoDB while the row's current claim (the latest claim or takeover executed on it, held or
 * released, the row not settled since) was another execution environment's: the case a kept release must leave alone.
 */
function releasesMeetingAnotherOwner(wire: readonly LedgerWireRecord[]): number {
  const owner = new Map<string, string | undefined>();
  let met = 0;
  for (const record of wire) {
    if (!record.key) continue;
    const values = (record.body.ExpressionAttributeValues ?? {}) as Record<string, { S?: string }>;
    if (record.write === 'claim' && record.status === 200) {
      const item = (record.body.Item ?? {}) as Record<string, { S?: string }>;
      owner.set(record.key, item.ownerToken?.S);
    } else if (record.write === 'takeover' && record.status === 200) owner.set(record.key, values[':owner']?.S);
    else if (record.write === 'complete' && record.status === 200) owner.delete(record.key);
    else if (record.write === 'release') {
      const current = owner.get(record.key);
      if (current !== undefined && environmentOf(current) !== environmentOf(record.actor)) met += 1;
    }
  }
  return met;
}

/** The pending index as the reclaimer sees it, limited to this schedule's keys (the table is shared by every schedule). */
function onlyKeys(source: StalePendingSource, keys: ReadonlySet<string>): StalePendingSource {
  return {
    async listStalePending(shard, claimedBefore, limit, cursor) {
      const page = await source.listStalePending(shard, claimedBefore, limit, cursor);
      return { rows: page.rows.filter((row) => keys.has(row.key)), cursor: page.cursor };
    },
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
