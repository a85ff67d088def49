import type { Scheduler } from 'fast-check';
import { vi } from 'vitest';
import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { pendingShardOf } from '../../functions/core/ledger/ledger-table';
import { silentLog } from '../../functions/core/observability/log-port';
import { countDigest, scopeCounts } from '../../functions/core/policy/message-limits';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { laneOfMessageClass, type LaneName } from '../../functions/core/policy/send-lanes';
import { laneDelivery } from '../../functions/delivery/lambda-delivery-context';
import { createReclaimer } from '../../functions/reclaimer/create-reclaimer';
import { deliver as deliverPlan, FRESH_CLAIM, type DeliveryContext } from '../../functions/delivery/deliver-message';
import type { KeptLedgerWrites } from '../../functions/delivery/kept-ledger-writes';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import { createStatusHandler } from '../../functions/status/create-status-handler';
import { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import { processRecord } from '../../functions/sender/process-record';
import { FallbackActors } from './fallback-actors';
import { checkFallbacks, FALLBACK_CHANNEL, fallbackAddressOf, type FallbackViolationFigures } from './fallback-checker';
import { mulberry32 } from '../../local/prng';
import { eumEvent, sqsEvent } from '../status/eum-fixtures';
import { cloudWatchLogsEvent, sesEvent, smsDeliveryLogLine, snsEvent } from '../status/status-fixtures';
import { lambdaContext } from '../support/sqs-event';
import { checkHistory, checkSettledAfterOneReclaim, type Violation } from './history-checker';
import { checkLimits, type CounterWindowSeen, type LimitedMessage } from './limit-checker';
import { PortGates } from './port-gates';
import { ObservedKeptWrites, releasesMeetingAnotherOwner } from './kept-write-coverage';
import {
  CLAIM_TIMEOUT_MS,
  CLASSES,
  DAY_MS,
  EVIDENCE_WAIT_MS,
  FIRST_LANE,
  FIRST_START_MS,
  FUNCTION_TIMEOUT_MS,
  LANE_CONFIGS,
  LONGEST_FALLBACK_WINDOW_MS,
  MESSAGE_SHAPES,
  STACK,
  TIMING,
  WORKER_LANES,
  WORKERS,
  WORKERS_PER_LANE,
} from './model-stack';
import { JUMP_MS, type Delivery, type Scenario } from './scenario';
import { LedgerNetwork } from './scheduled-ledger-transport';
import { ScriptedProviders } from './scripted-provider';

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
  /** Fallbacks sent, and of those by the class's no-evidence exception (counted apart, never violations). */
  readonly fallbacks: FallbackViolationFigures;
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

  const withFallback = new Set(scenario.fallback.messages);
  const planOf = new Map(scenario.messages.map((i) => [i, planInShardZero(MESSAGE_SHAPES[i]!, `evt-${run}-m${i}`, withFallback.has(i) ? i : undefined)] as const));
  /** The fallback's key of each message that names one (its row's `fallbackKey`). */
  const fallbackKeyOf = new Map([...planOf].flatMap(([i, plan]) => (plan.fallback ? [[i, plan.fallback.key] as const] : [])));
  const plans = [...planOf.values()];
  // The reclaimer sees the fallbacks' rows too: a fallback is a message of the ledger like any other.
  const keys = new Set([...plans.map((p) => p.key), ...fallbackKeyOf.values()]);
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
  const invoke = (d: Omit<Delivery, 'message'> & { readonly message?: number; readonly fallbackRequest?: string }, worker: number, actor: string) => {
    const environment = environments[worker]!;
    const keptWrites = environment.keptWrites;
    const ctx = contextFor(actor, { lane: environment.lane, readBeforeClaim: d.readBeforeClaim, keptWrites });
    const keptContext = { ...ctx, concurrency: 4 };
    return startActor(actor, async () => {
      await keptWrites.writeAll(keptContext);
      const result =
        d.message !== undefined
          ? await deliverPlan(planOf.get(d.message)!, FRESH_CLAIM, ctx)
          : d.fallbackRequest !== undefined
            ? await fallbackRecord(d.fallbackRequest, actor, ctx)
            : undefined;
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
  /** A fallback's request, as the sender's handler processes an SQS record (processRecord), with the lane's context. */
  const fallbackRecord = async (body: string, actor: string, ctx: DeliveryContext) => {
    const result = await processRecord(
      { messageId: actor, body },
      { ...ctx, deadLetters: new InMemoryDeadLetters(), messageClasses: CLASSES, templates: repositoryTemplates(), maxBodyBytes: 262_144, maxClockSkewMs: 300_000, limit: (task) => task() },
    );
    return result.messages.every((message) => message.settled) ? ({ settled: true } as const) : ({ settled: false, why: 'fallback request unsettled' } as const);
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

  // The stream and the fallback trigger, on the rows of the primaries that name a fallback.
  const fallback = new FallbackActors({
    gates,
    scenario: scenario.fallback,
    primaryKeys: new Set([...planOf].filter(([i]) => fallbackKeyOf.has(i)).map(([, plan]) => plan.key)),
    client: server.client,
    tableName: server.tableName,
    classes: CLASSES,
    bulkClasses: STACK.bulkClasses,
    clock,
    metrics,
    ledgerOf,
    startActor,
    faultsOn: () => faultsOn,
    handToSender: ({ body, lane, attempt }, name) => {
      const worker = WORKER_LANES.indexOf(lane) + (attempt % WORKERS_PER_LANE);
      return enqueue({ worker, readBeforeClaim: attempt > 0, fallbackRequest: body }, worker, `w${worker}.${name}`).then(
        (result) => result !== 'crashed' && result !== undefined && result.settled,
      );
    },
  });
  if (fallbackKeyOf.size > 0) network.onExecuted = (record) => fallback.executed(record);

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
  // Each comes at its point of the schedule; one that came before any send of its message comes again in recovery.
  const lateProofsLeft = new Set(scenario.lateProofs.keys());
  scenario.lateProofs.forEach((message, i) => {
    const actor = `p${i}`;
    work.push(
      gates.pass(actor, `a refusal, then a late proof, for m${message}`).then(async () => {
        if (await lateProof(`${actor}.status`, message)) lateProofsLeft.delete(i);
      }),
    );
  });
  const evidence = async (actor: string, message: number) => {
    const plan = planOf.get(message)!;
    const sent = providers.acceptedFor(plan.key).at(-1);
    if (!sent || sent.channel === 'push') return; // nothing sent, or a channel without delivery events
    if (fates.get(sent.providerMessageId) === 'failed') return;
    fates.set(sent.providerMessageId, 'delivered');
    const at = new Date(now).toISOString();
    const input =
      sent.channel === 'email'
        ? snsEvent(sesEvent('Delivery', { key: plan.key, sesMessageId: sent.providerMessageId, mailAt: at }))
        : scenario.smsProvider === 'end-user-messaging'
          ? // End User Messaging: the text's own event, through the events queue, naming the key and the claim that sent it.
            sqsEvent(eumEvent('TEXT_DELIVERED', { key: plan.key, claimVersion: sent.claimVersion, messageId: sent.providerMessageId, at: now }))
          : cloudWatchLogsEvent([{ message: smsDeliveryLogLine(sent.providerMessageId, 'SUCCESS'), timestamp: now }]);
    const handler = createStatusHandler({ store: ledgerOf(actor), metrics, log: silentLog, clock });
    const result = await startActor(actor, () => handler(input, lambdaContext()));
    // A keyed proof the status Lambda finished with: the row must keep it (SNS's logs name no key, so may find no row).
    if (result !== 'crashed' && (sent.channel === 'email' || scenario.smsProvider === 'end-user-messaging')) provenKeys.add(plan.key);
  };
  /**
   * What became of each accepted send in the world (by provider message id): delivered (a delivery event was sent) or
   * failed for good (a hard failure was sent). One fate per send: the other event is never sent for it.
   */
  const fates = new Map<string, 'delivered' | 'failed'>();
  const hardFailure = async (actor: string, message: number) => {
    const plan = planOf.get(message)!;
    const sent = providers.acceptedFor(plan.key).at(-1);
    if (!sent || sent.channel === 'push' || (sent.channel === 'sms' && scenario.smsProvider !== 'end-user-messaging')) return;
    if (fates.get(sent.providerMessageId) === 'delivered') return;
    fates.set(sent.providerMessageId, 'failed');
    const input =
      sent.channel === 'email'
        ? snsEvent(sesEvent('Bounce', { key: plan.key, sesMessageId: sent.providerMessageId, mailAt: new Date(sent.at).toISOString(), at: new Date(now).toISOString(), ...(sent.claimVersion !== undefined ? { claimVersion: sent.claimVersion } : {}) }))
        : sqsEvent(eumEvent('TEXT_BLOCKED', { key: plan.key, claimVersion: sent.claimVersion, messageId: sent.providerMessageId, at: now }));
    const handler = createStatusHandler({ store: ledgerOf(actor), metrics, log: silentLog, clock });
    await startActor(actor, () => handler(input, lambdaContext()));
  };
  scenario.fallback.hardFailures.forEach((message, i) => {
    work.push(gates.pass(`h${i}`, `m${message}'s last send fails for good`).then(() => hardFailure(`h${i}.status`, message)));
  });
  /** Keys whose proof of a send the status Lambda processed to the end: the checker holds that none is lost. */
  const provenKeys = new Set<string>();
  let lateProofsAfterRefusal = 0;
  /** Whether the message had a send whose attempt its events name (else there is nothing to prove yet). */
  const lateProof = async (actor: string, message: number): Promise<boolean> => {
    const plan = planOf.get(message)!;
    const accepted = providers.acceptedFor(plan.key);
    const first = accepted[0];
    if (!first || first.channel === 'push' || first.claimVersion === undefined || fates.get(first.providerMessageId) === 'failed') return false;
    if (first.channel === 'sms' && scenario.smsProvider !== 'end-user-messaging') return false; // SNS's logs name no attempt
    // The later attempt: the row's current claim (read as one more actor, through the scheduled network), if it is
    // later than the proven one, over (released: its owner's call is done) and the provider never accepted it, so
    // that its refusal is true. Else there is no such attempt yet: the recovery phase tries again.
    const read = await startActor(`${actor}.read`, () => ledgerOf(`${actor}.read`).get(plan.key));
    if (read === 'crashed' || read === undefined) return false;
    const current = read.claimVersion;
    const over = read.lastRelease !== undefined;
    // A refusal names an attempt whose request reached the provider: a takeover that only released (waiting for
    // evidence) made no call, and AWS sends no event for it (a refusal there was a world the model made up).
    const calledWithCurrent = providers.requested.some((r) => r.key === plan.key && r.claimVersion === current);
    if (current <= first.claimVersion || !over || !calledWithCurrent || providers.acceptedFor(plan.key).some((s) => s.claimVersion === current)) return false;
    const key = plan.key;
    const [refusal, proof] =
      first.channel === 'email'
        ? [
            snsEvent(sesEvent('Reject', { key, claimVersion: current, mailAt: new Date(now).toISOString() })),
            snsEvent(sesEvent('Delivery', { key, claimVersion: first.claimVersion, sesMessageId: first.providerMessageId, mailAt: new Date(first.at).toISOString() })),
          ]
        : [
            sqsEvent(eumEvent('TEXT_TTL_EXPIRED', { key, claimVersion: current, at: now })),
            sqsEvent(eumEvent('TEXT_DELIVERED', { key, claimVersion: first.claimVersion, messageId: first.providerMessageId, at: first.at })),
          ];
    fates.set(first.providerMessageId, 'delivered');
    const handler = createStatusHandler({ store: ledgerOf(actor), metrics, log: silentLog, clock });
    await startActor(`${actor}.refusal`, () => handler(refusal, lambdaContext()));
    if ((await startActor(`${actor}.proof`, () => handler(proof, lambdaContext()))) === 'crashed') return true;
    provenKeys.add(key);
    lateProofsAfterRefusal += 1;
    return true;
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
  for (const i of lateProofsLeft) {
    const message = scenario.lateProofs[i]!;
    void gates.pass(`p${i}.recovery`, `a refusal, then a late proof, for m${message}`).then(() => lateProof(`p${i}.recovery.status`, message));
  }
  // Every environment still alive is invoked again, while the reclaimer takes over what it still holds.
  for (let worker = 0; worker < WORKERS; worker += 1) void enqueue({ worker, readBeforeClaim: false }, worker, `w${worker}.recovery`);
  await gates.drive();
  if (network.releaseHeldCopies()) await gates.drive();
  const afterOneReclaim = await readRows();
  jump(EVIDENCE_WAIT_MS + 1);
  void reclaim('recovery.reclaimer-2');
  await gates.drive();
  const rows = await readRows();
  // The fallbacks: past the longest class window, the records and requests faults left are handed on, and the
  // reclaimer settles what is left of a fallback's own row (a claim timeout, then past the evidence wait).
  let fallbackRows: LedgerRow[] = [];
  if (fallbackKeyOf.size > 0) {
    jump(LONGEST_FALLBACK_WINDOW_MS + 1);
    await fallback.recover();
    await gates.drive();
    await fallback.recover();
    await gates.drive();
    jump(CLAIM_TIMEOUT_MS + 1);
    void reclaim('recovery.reclaimer-3');
    await gates.drive();
    jump(EVIDENCE_WAIT_MS + 1);
    void reclaim('recovery.reclaimer-4');
    await gates.drive();
    fallbackRows = (await Promise.all([...fallbackKeyOf.values()].map((key) => server.ledger.get(key)))).filter((row): row is LedgerRow => row !== undefined);
  }
  const primaryRowsAtEnd = fallbackKeyOf.size > 0 ? await readRows() : rows;

  const limited = await readCounters(server, plans, rows);
  for (const client of clients) client.destroy();

  const checked = checkHistory({
    messages: plans.map((p) => ({ key: p.key, messageClass: p.messageClass, channel: p.identity.channel })),
    accepted: providers.accepted,
    rejectedKeys: providers.rejectedKeys,
    rows,
    wire: network.executed,
    timing: TIMING,
    provenKeys,
  });
  const fallbackChecked = checkFallbacks({
    fallbacks: [...fallbackKeyOf].map(([i, fallbackKey]) => {
      const plan = planOf.get(i)!;
      return { primaryKey: plan.key, fallbackKey, messageClass: plan.messageClass, fallbackAddress: fallbackAddressOf(i, FALLBACK_CHANNEL[plan.identity.channel]) };
    }),
    accepted: providers.accepted,
    fates,
    primaryRows: primaryRowsAtEnd,
    fallbackRows,
    classes: CLASSES,
    nowMs: now,
  });
  const violations = [
    ...fallbackChecked.violations,
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
      ["an earlier attempt's proof of a send, late, after a later attempt's refusal", lateProofsAfterRefusal],
      ['ledger writes kept through an outage', metrics.get(METRIC.UnsentClaimKept) + metrics.get(METRIC.OutcomeKept)],
      ['kept writes made (or claims taken back) later', metrics.get(METRIC.UnsentClaimReleased) + metrics.get(METRIC.OutcomeRecordedLater)],
      ['kept releases that found the row moved on', metrics.get(METRIC.UnsentClaimAlreadyTaken)],
      ['  of those, on a row whose current claim was another environment\'s', releasesMeetingAnotherOwner(network.executed)],
      ['deliveries that met another claim on a row whose earlier claim their environment keeps unsent', metOthersClaim.any],
      ['  of those, a claim held (not released, its lease running)', metOthersClaim.live],
      ['limit store failures (claim handed back)', metrics.get(METRIC.LimitStoreError)],
      ['SUPPRESSED rows', rows.filter((row) => row.state === 'SUPPRESSED').length],
      ['throttled sends made again in place, claim held (the urgent lane\'s pauses)', inPlaceRetries],
      ['fallback: stream records of primaries', fallback.counts.records],
      ['fallback: trigger invocations', fallback.counts.invocations],
      ['  of those, killed at a gate', fallback.counts.triggerCrashes],
      ['fallback: requests put on the queue', fallback.counts.requestsPut],
      ['  deliveries of them to a sender (at least once; an early one comes back)', fallback.counts.requestsReceived],
      ['fallback: sent', fallbackChecked.figures.sent],
      ['  of those, by the class\'s no-evidence window', fallbackChecked.figures.withoutEvidence],
      ['fallback: primaries certainly undelivered in the world, not provably so on their row', fallbackChecked.figures.undeliveredUnproven],
    ]),
    permittedResends: checked.permittedResends,
    rows,
    fallbacks: fallbackChecked.figures,
  };
}

/**
 * The message's plan, its event id suffixed until its key falls in pending-index shard 0: the
 * reclaimer then needs to query one shard (`pendingIndexShards: 1`) to see every row of the schedule.
 */
function planInShardZero(shape: (typeof MESSAGE_SHAPES)[number], eventId: string, fallbackOf?: number): MessagePlan {
  for (let n = 0; ; n += 1) {
    const plan = planOf(shape, `${eventId}-${n}`, fallbackOf);
    if (pendingShardOf(plan.key) === '0') return plan;
  }
}

/** The plan of one message; with `fallbackOf` (its number), its recipient names the next channel at its own address. */
function planOf(shape: (typeof MESSAGE_SHAPES)[number], eventId: string, fallbackOf?: number): MessagePlan {
  const direct =
    shape.channel === 'email'
      ? { recipientId: 'user-9', email: 'user9@example.com', channels: [shape.channel] }
      : shape.channel === 'sms'
        ? { recipientId: 'user-9', phone: '+14155550101', channels: [shape.channel] }
        : { recipientId: 'user-9', pushEndpointArn: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab', channels: [shape.channel] };
  const next = FALLBACK_CHANNEL[shape.channel];
  const recipient =
    fallbackOf === undefined
      ? direct
      : { ...direct, channels: [], fallback: [shape.channel, next], ...(next === 'email' ? { email: fallbackAddressOf(fallbackOf, next) } : { phone: fallbackAddressOf(fallbackOf, next) }) };
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

/** The pending index as the reclaimer sees it, limited to this schedule's keys (the table is shared by every schedule). */
function onlyKeys(source: StalePendingSource, keys: ReadonlySet<string>): StalePendingSource {
  return {
    async listStalePending(shard, claimedBefore, limit, cursor) {
      const page = await source.listStalePending(shard, claimedBefore, limit, cursor);
      return { rows: page.rows.filter((row) => keys.has(row.key)), cursor: page.cursor };
    },
  };
}
