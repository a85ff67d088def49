import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { idempotencyKey } from '../../functions/core/idempotency-key';
import { METRIC } from '../../functions/core/metric-names';
import { InMemoryMetrics } from '../../functions/core/metrics-recorder';
import type { NotificationEvent } from '../../functions/core/notification-event';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { lanePace, URGENT_THROTTLE_BACKOFF_BASE_SECONDS, type LaneName } from '../../functions/core/send-lanes';
import { DEFAULT_BACKOFF } from '../../functions/core/visibility-backoff';
import { queueDepth, queueIsEmpty, readAllVisible } from '../../local/aws/queue-inspection';
import { SqsEventSource } from '../../local/aws/sqs-event-source';
import { createLambdaWiring, type LambdaWiring } from '../../local/lambda-wiring';
import { startLocalDynamo } from '../../local/local-dynamo';
import { ReclaimerTimer } from '../../local/reclaimer-timer';
import { scanLedger } from '../../local/senders/this-sender';
import type { BlastScenarioOptions, EnqueuedCode } from './blast-options';
import { summariseBlastRun, type BlastRunResult } from './blast-result';
import { CountingProvider, type RequestCountsByChannel } from './counting-provider';
import { CpuSampler } from './cpu-sampler';
import { applyBenchEnvironment, countingLog, enqueueBurst, VISIBILITY_TIMEOUT_SECONDS } from './pace-scenario';
import { startProviderServices } from './provider-services';

/** A lane as the bench runs it: its queue pair and the sender's variables the stack would set. */
interface BenchLane {
  readonly name: LaneName | 'single';
  readonly queue: { readonly queueUrl: string; readonly queueArn: string; readonly dlqUrl: string };
  readonly maxConcurrency: number;
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * Runs the blast: `blast` marketing e-mails on the queue at once, then login codes at `codesPerSecond`
 * for `codesForMs`, drained by the real sender(s) wired as Lambda wires them, against a local SES that
 * throttles above `emailQuota`. With lanes, the two senders have the variables the stack gives each lane
 * (`lanePace`); without, one sender paces at the whole account rate, as the stack did before lanes.
 */
export async function runBlastScenario(options: BlastScenarioOptions): Promise<BlastRunResult> {
  const [dynamo, services] = await Promise.all([
    startLocalDynamo({ separateProcess: true }),
    startProviderServices({
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
      maxReceiveCount: options.maxReceiveCount,
      emailPerSecond: options.emailQuota,
      smsPerSecond: options.emailQuota,
      extraQueues: options.lanes ? ['notifier-bulk'] : [],
    }),
  ]);
  const tableName = `blast-${randomUUID().slice(0, 8)}`;
  // Each lane's variables are given to its own loadSenderConfig, not to the process.
  const restore = applyBenchEnvironment(dynamo.endpoint, services, tableName);
  try {
    const lanes = benchLanes(options, services.queue, services.extraQueues['notifier-bulk']);
    const metrics = new InMemoryMetrics();
    const requests: Record<string, RequestCountsByChannel> = {};
    const logCounts: Record<string, number> = {};
    const sentLatenciesMs: number[] = [];
    const wirings = lanes.map((lane) => {
      const config = loadSenderConfig({ ...process.env, ...lane.environment });
      const laneRequests: RequestCountsByChannel = (requests[lane.name] = {});
      const wiring = createLambdaWiring(
        config,
        { metrics, log: countingLog(logCounts), wrapProvider: (provider) => new CountingProvider(provider, laneRequests, sentLatenciesMs) },
        VISIBILITY_TIMEOUT_SECONDS * 1000,
      );
      return { lane, config, wiring };
    });
    const admin = dynamo.client();
    await ensureLedgerTable(admin, tableName);
    const sqs = services.sqsClient();
    const runId = randomUUID().slice(0, 8);
    const blastLane = lanes.at(-1)!;
    const codeLane = lanes[0]!;
    const occurredAt = new Date().toISOString();
    const blastBodies = Array.from({ length: options.blast }, (_, i) => JSON.stringify(marketingEvent(runId, i, occurredAt)));
    const blastKeys = new Set(Array.from({ length: options.blast }, (_, i) => keyOf(marketingEvent(runId, i, occurredAt))));
    await enqueueBurst(sqs, blastLane.queue.queueUrl, blastBodies);
    options.log(`  ${options.label}: ${options.blast} marketing e-mails on the ${blastLane.name} queue; draining, codes at ${options.codesPerSecond}/s ...`);

    const sources = wirings.map(
      ({ lane, config, wiring }) =>
        new SqsEventSource({
          client: sqs,
          queueUrl: lane.queue.queueUrl,
          queueArn: lane.queue.queueArn,
          createHandler: (env) => wiring.createHandler(env),
          functionTimeoutMs: config.functionTimeoutMs,
          batchSize: options.batchSize,
          maximumConcurrency: lane.maxConcurrency,
          waitTimeSeconds: 1,
        }),
    );
    const reclaimerWiring: LambdaWiring = wirings[0]!.wiring;
    const reclaimer = new ReclaimerTimer(reclaimerWiring, reclaimerWiring.timing, wirings[0]!.config.claimTimeoutMs);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    const cpuSampler = new CpuSampler();
    const codes: EnqueuedCode[] = [];
    let trickling = true;
    const allEmpty = async () => {
      if (trickling) return false;
      for (const lane of lanes) if (!(await queueIsEmpty(sqs, lane.queue.queueUrl))) return false;
      return true;
    };
    cpuSampler.start();
    loopDelay.enable();
    reclaimer.start();
    const drainStarted = Date.now();
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      trickling = false;
      for (const source of sources) source.stop();
    }, options.maxDrainMs);
    const progress = setInterval(() => {
      void Promise.all(lanes.map((lane) => queueDepth(sqs, lane.queue.queueUrl))).then(
        (depths) => {
          const elapsedMs = Date.now() - drainStarted;
          const visible = depths.map((d, i) => `${lanes[i]!.name} ${d.visible}+${d.inFlight}`).join(', ');
          const status = `sent ${metrics.get(METRIC.Sent)}, throttled ${metrics.get(METRIC.ProviderThrottled)}, codes ${codes.length}, queues ${visible}`;
          const line = `  ${options.label}: ${Math.round(elapsedMs / 1000)} s, ${status}`;
          if (options.progress) options.progress.update({ done: metrics.get(METRIC.Sent), total: options.blast + codes.length, elapsedMs, text: `${options.label}: ${status}`, plain: line });
          else options.log(line);
        },
        () => undefined,
      );
    }, 10_000);
    const trickle = trickleCodes({ sqs, queueUrl: codeLane.queue.queueUrl, runId, occurredAt, options, codes, startedAt: drainStarted }).finally(() => {
      trickling = false;
    });
    try {
      await Promise.all([trickle, ...sources.map((source) => source.run(allEmpty))]);
    } finally {
      clearTimeout(watchdog);
      clearInterval(progress);
      loopDelay.disable();
      cpuSampler.stop();
      for (const source of sources) source.stop();
      await reclaimer.stop();
    }
    const invocations = sources.flatMap((source) => source.invocations);
    const lastAck = invocations.reduce((last, i) => (i.deleted > 0 ? Math.max(last, i.startedAt + i.durationMs) : last), drainStarted);
    let stillQueued = 0;
    const deadLetterReasons: (string | undefined)[] = [];
    for (const lane of lanes) {
      const depth = await queueDepth(sqs, lane.queue.queueUrl);
      stillQueued += depth.visible + depth.inFlight + depth.delayed;
      for (const m of await readAllVisible(sqs, lane.queue.dlqUrl)) deadLetterReasons.push(m.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.reason]?.StringValue);
    }
    const rows = await scanLedger({ adminClient: admin }, tableName);
    return summariseBlastRun({
      options,
      blastKeys,
      codes,
      accepted: await services.acceptedSends(),
      rows: [...rows.values()],
      requests,
      metrics,
      deadLetterReasons,
      stillQueued,
      drained: !timedOut,
      drainStartedAt: drainStarted,
      drainMs: (timedOut ? Date.now() : lastAck) - drainStarted,
      cpuUntil: (untilMs) => cpuSampler.useUntil(untilMs),
      senderWarnings: logCounts,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      sentLatenciesMs,
      lanes: lanes.map((lane) => ({ name: lane.name, maxConcurrency: lane.maxConcurrency, environment: lane.environment })),
    });
  } finally {
    restore();
    await Promise.allSettled([services.stop(), dynamo.stop()]);
  }
}

/** The lanes of a run and each sender's variables, as lib/ sets them per lane. */
function benchLanes(
  options: BlastScenarioOptions,
  main: BenchLane['queue'],
  bulk: BenchLane['queue'] | undefined,
): readonly BenchLane[] {
  const common = (queue: BenchLane['queue']) => ({
    SOURCE_QUEUE_URL: queue.queueUrl,
    DEAD_LETTER_QUEUE_URL: queue.dlqUrl,
    SEND_RATE_EMAIL_PER_SECOND: String(options.emailQuota),
    THROTTLE_BACKOFF_CAP_SECONDS: String(DEFAULT_BACKOFF.capSeconds),
  });
  if (!options.lanes || !bulk) {
    return [
      {
        name: 'single',
        queue: main,
        maxConcurrency: options.maxConcurrency,
        environment: {
          ...common(main),
          SEND_RATE_SHARES: String(options.maxConcurrency + 1),
          THROTTLE_BACKOFF_BASE_SECONDS: String(DEFAULT_BACKOFF.baseSeconds),
        },
      },
    ];
  }
  const capacity = { urgentMaxConcurrency: options.urgentMaxConcurrency, bulkMaxConcurrency: options.maxConcurrency, bulkRateShare: options.bulkRateShare };
  const laneEnvironment = (name: LaneName, queue: BenchLane['queue'], baseSeconds: number) => {
    const pace = lanePace(name, capacity);
    return {
      ...common(queue),
      SEND_LANE: name,
      SEND_RATE_SHARES: String(pace.sendRateShares),
      SEND_RATE_ACCOUNT_SHARE: String(pace.accountShare),
      SEND_RATE_YIELDS_TO_THROTTLING: String(pace.yieldsToThrottling),
      THROTTLE_BACKOFF_BASE_SECONDS: String(baseSeconds),
    };
  };
  return [
    { name: 'urgent', queue: main, maxConcurrency: options.urgentMaxConcurrency, environment: laneEnvironment('urgent', main, URGENT_THROTTLE_BACKOFF_BASE_SECONDS) },
    { name: 'bulk', queue: bulk, maxConcurrency: options.maxConcurrency, environment: laneEnvironment('bulk', bulk, DEFAULT_BACKOFF.baseSeconds) },
  ];
}

/** Enqueues one login code every 1/codesPerSecond s (on a fixed schedule, not after each send) for codesForMs. */
async function trickleCodes(input: {
  sqs: SQSClient;
  queueUrl: string;
  runId: string;
  occurredAt: string;
  options: BlastScenarioOptions;
  codes: EnqueuedCode[];
  startedAt: number;
}): Promise<void> {
  const { options, codes } = input;
  const count = Math.floor((options.codesForMs / 1000) * options.codesPerSecond);
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = input.startedAt + (i * 1000) / options.codesPerSecond;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const event = loginCodeEvent(input.runId, i, input.occurredAt);
    const enqueuedAt = Date.now();
    codes.push({ key: keyOf(event), enqueuedAt });
    inFlight.push(input.sqs.send(new SendMessageCommand({ QueueUrl: input.queueUrl, MessageBody: JSON.stringify(event) })));
  }
  await Promise.all(inFlight);
}

function keyOf(event: NotificationEvent): string {
  const recipient = event.recipients[0]!;
  return idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel: 'email', templateId: event.templateId });
}

function marketingEvent(runId: string, i: number, occurredAt: string): NotificationEvent {
  return {
    eventId: `blast-${runId}-${i}`,
    occurredAt,
    type: 'WeeklyOffers',
    templateId: 'weekly-offers',
    messageClass: 'marketing',
    data: { headline: `Offers of week ${i % 52}`, url: 'https://shop.example.com/offers' },
    recipients: [{ recipientId: `subscriber-${i}`, email: `subscriber-${i}@example.com`, channels: ['email'] }],
  };
}

/** One code per user: each a new recipient and address, so no abuse limit is near. */
function loginCodeEvent(runId: string, i: number, occurredAt: string): NotificationEvent {
  return {
    eventId: `code-${runId}-${i}`,
    occurredAt,
    type: 'LoginCodeRequested',
    templateId: 'login-code',
    messageClass: 'otp',
    data: { code: String(100_000 + i), expiresInMinutes: '10' },
    recipients: [{ recipientId: `user-${i}`, email: `user-${i}@example.com`, channels: ['email'] }],
  };
}
