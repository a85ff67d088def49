import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox } from '../functions/adapters/outbox-provider';
import { InMemoryDeadLetters } from '../functions/core/queue/dead-letter-sink';
import { silentLog, type LogPort } from '../functions/core/observability/log-port';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import { DynamoRequestCounter } from './dynamo-request-counter';
import { FaultPlan, NO_FAULTS, type FaultRates } from './fault-plan';
import { IndexedOutbox } from './indexed-outbox';
import { LambdaEventSource } from './lambda-event-source';
import { LocalQueue } from './local-queue';
import { startLocalDynamo, type LocalDynamo } from './local-dynamo';
import { naiveSender } from './senders/naive-sender';
import { powertoolsSender } from './senders/powertools-sender';
import { SCALED_TIMING, type SenderName, type SenderPorts, type SenderUnderTest, type SimulationTiming } from './senders/sender-under-test';
import { simulationTableIndexes, thisSender } from './senders/this-sender';
import { ReclaimerTimer } from './reclaimer-timer';
import { buildReport, type SimulationReport } from './simulation-report';
import { generateWorkload, type MessageMeta, type Workload } from './workload';

/** The local queue expires nothing during a run; described to the sender as SQS's longest retention. */
const LOCAL_QUEUE_RETENTION_MS = 14 * 86_400_000;

/** Knobs of one simulated run. */
export interface SimulationOptions {
  /** @default 'this-sender' */
  readonly sender?: SenderName;
  /** Builds the sender instead of `sender`'s default wiring (benchmark variants). @default buildSender */
  readonly senderFactory?: (ports: SenderPorts) => SenderUnderTest;
  /** Queue messages to inject, duplicates included. @default 1000 */
  readonly events?: number;
  /** Share of injected messages that repeat an earlier event. @default 0.3 */
  readonly duplicateRate?: number;
  /** Injection rate, events per second. @default 1000 */
  readonly rate?: number;
  /** Concurrent simulated Lambda invocations. @default 16 */
  readonly concurrency?: number;
  /** Records per invocation. @default 10 */
  readonly batchSize?: number;
  /**
   * Deliveries in flight at once inside one invocation (MAX_CONCURRENT_SENDS). With 1, a crash
   * stops an invocation at one exact point, so per-message outcomes are reproducible per seed.
   * @default 1
   */
  readonly sendsPerInvocation?: number;
  /** @default 1 */
  readonly seed?: number;
  /** @default no faults */
  readonly faults?: Partial<FaultRates>;
  /** Each fault kind fires at most this often per message and call site. @default 1 */
  readonly maxFaultsPerMessage?: number;
  /** Redrive policy. @default 5 (the stack's minimum) */
  readonly maxReceiveCount?: number;
  /** @default SCALED_TIMING */
  readonly timing?: SimulationTiming;
  /** Keep the provider calls in this JSON-lines file. @default a temporary file */
  readonly outboxFile?: string;
  /** Reuse a running server (the benchmark runs several senders on one). @default start one in memory */
  readonly dynamo?: LocalDynamo;
  /** @default silent */
  readonly log?: LogPort;
  /** How often the reclaimer runs, for a sender that has one. @default the claim timeout */
  readonly reclaimIntervalMs?: number;
  /** Inject this workload instead of generating one from `events` and `duplicateRate`. @default generated */
  readonly workload?: Workload;
  /** Called about every 500 ms while the run is in progress. */
  readonly onProgress?: (progress: SimulationProgress) => void;
}

export interface SimulationProgress {
  readonly injected: number;
  readonly total: number;
  readonly acked: number;
  readonly inQueue: number;
  readonly elapsedMs: number;
}

/** Builds one of the senders under test on the given ports. */
export function buildSender(name: SenderName, ports: SenderPorts): SenderUnderTest {
  switch (name) {
    case 'this-sender':
      return thisSender(ports);
    case 'powertools':
      return powertoolsSender(ports);
    case 'naive':
      return naiveSender(ports);
  }
}

/**
 * Runs one sender behind the local queue on a generated workload with injected faults, in
 * real time with timeouts scaled down (see SCALED_TIMING), and reports what happened.
 */
export async function runSimulation(options: SimulationOptions = {}): Promise<SimulationReport> {
  const settings = {
    sender: options.sender ?? 'this-sender',
    events: options.events ?? 1000,
    duplicateRate: options.duplicateRate ?? 0.3,
    rate: options.rate ?? 1000,
    concurrency: options.concurrency ?? 16,
    batchSize: options.batchSize ?? 10,
    sendsPerInvocation: options.sendsPerInvocation ?? 1,
    seed: options.seed ?? 1,
    faults: { ...NO_FAULTS, ...options.faults },
    maxFaultsPerMessage: options.maxFaultsPerMessage ?? 1,
    maxReceiveCount: options.maxReceiveCount ?? 5,
    timing: options.timing ?? SCALED_TIMING,
    reclaimIntervalMs: options.reclaimIntervalMs ?? (options.timing ?? SCALED_TIMING).claimTimeoutMs,
  } as const;
  const dynamo = options.dynamo ?? (await startLocalDynamo());
  const outboxFile = options.outboxFile ?? join(mkdtempSync(join(tmpdir(), 'notifier-sim-')), 'outbox.jsonl');
  writeFileSync(outboxFile, '');
  const counter = new DynamoRequestCounter(simulationTableIndexes);
  const client = dynamo.client();
  counter.attach(client);
  try {
    const ports: SenderPorts = {
      plan: new FaultPlan(settings.seed, settings.faults, settings.maxFaultsPerMessage),
      outbox: new IndexedOutbox(outboxFile),
      client,
      adminClient: dynamo.client(),
      metrics: new InMemoryMetrics(),
      deadLetters: new InMemoryDeadLetters(),
      log: options.log ?? silentLog,
      timing: settings.timing,
      sendsPerInvocation: settings.sendsPerInvocation,
      runId: randomUUID().slice(0, 8),
      // As the stack describes its queue to the sender; the local queue keeps messages for the whole run.
      redelivery: {
        maxReceiveCount: settings.maxReceiveCount,
        retentionMs: LOCAL_QUEUE_RETENTION_MS,
        longestRedeliveryGapMs: settings.timing.visibilityTimeoutMs,
      },
    };
    const sender = options.senderFactory ? options.senderFactory(ports) : buildSender(settings.sender, ports);
    await sender.setup();

    const workload = options.workload ?? generateWorkload({ messages: settings.events, duplicateRate: settings.duplicateRate, seed: settings.seed });
    const queue = new LocalQueue<MessageMeta>({
      visibilityTimeoutMs: settings.timing.visibilityTimeoutMs,
      maxReceiveCount: settings.maxReceiveCount,
    });
    const acks: { meta: MessageMeta; latencyMs: number; receiveCount: number }[] = [];
    const source = new LambdaEventSource(queue, (env) => sender.createHandler(env), {
      concurrency: settings.concurrency,
      batchSize: settings.batchSize,
      functionTimeoutMs: settings.timing.functionTimeoutMs,
    }, (ack, at) => acks.push({ meta: ack.meta, latencyMs: at - ack.sentAt, receiveCount: ack.receiveCount }));

    const started = Date.now();
    let injected = 0;
    let firstSendAt = 0;
    let lastSendAt = 0;
    const progress = options.onProgress
      ? setInterval(() => {
          options.onProgress?.({ injected, total: workload.items.length, acked: acks.length, inQueue: queue.size, elapsedMs: Date.now() - started });
        }, 500)
      : undefined;
    const produce = async () => {
      for (const item of workload.items) {
        const due = started + (injected * 1000) / settings.rate;
        const wait = due - Date.now();
        if (wait > 4) await new Promise((resolve) => setTimeout(resolve, wait));
        queue.send(item.body, { eventId: item.eventId, messageClass: item.messageClass, duplicate: item.duplicate });
        lastSendAt = Date.now();
        if (injected === 0) firstSendAt = lastSendAt;
        injected += 1;
      }
    };
    const reclaimer = new ReclaimerTimer(sender, settings.timing, settings.reclaimIntervalMs);
    reclaimer.start();
    const injection = produce();
    let producerDone = false;
    const injectedAt = injection.then(() => {
      producerDone = true;
      return Date.now();
    });
    try {
      await Promise.all([injection, source.run(() => producerDone)]);
    } finally {
      if (progress) clearInterval(progress);
      await reclaimer.stop();
    }
    const injectionEnded = await injectedAt;
    // Rows still PENDING (their records went to the DLQ, or their last attempt died): the
    // scheduled reclaimer would find them once their claims are stale. Run it once more then.
    const pendingLeft = sender.finalRows ? [...(await sender.finalRows()).values()].some((r) => r.state === 'PENDING') : false;
    if (pendingLeft && sender.createReclaimer) {
      await new Promise((resolve) => setTimeout(resolve, settings.timing.claimTimeoutMs + 200));
      await reclaimer.runOnce();
    }
    const ended = Date.now();

    return buildReport({
      settings,
      workload,
      outbox: await readOutbox(outboxFile),
      outboxFile,
      rows: sender.finalRows ? await sender.finalRows() : undefined,
      ports,
      queue,
      source,
      acks,
      dynamo: counter.snapshot(),
      timeline: { started, injectionEnded, ended, firstSendAt, lastSendAt },
      reclaimerRuns: reclaimer.runs,
      reclaimerFailedRuns: reclaimer.failedRuns,
    });
  } finally {
    if (!options.dynamo) await dynamo.stop();
  }
}
