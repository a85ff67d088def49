import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { queueDepth, queueIsEmpty, readAllVisible } from '../../local/aws/queue-inspection';
import { SqsEventSource } from '../../local/aws/sqs-event-source';
import { createLambdaWiring, type LambdaWiring } from '../../local/lambda-wiring';
import { startLocalDynamo } from '../../local/local-dynamo';
import { localLaneSenders, resolveLocalStack, type LocalLaneSender, type LocalStack } from '../../local/local-stack';
import { ReclaimerTimer } from '../../local/reclaimer-timer';
import { scanLedger } from '../../local/senders/this-sender';
import type { BlastScenarioOptions, EnqueuedCode } from './blast-options';
import { summariseBlastRun, type BlastRunResult } from './blast-result';
import { CountingProvider, type RequestCountsByChannel } from './counting-provider';
import { CpuSampler } from './cpu-sampler';
import { applyBenchEnvironment, BENCH_EMAIL_FROM, countingLog, enqueueBurst } from './pace-scenario';
import { startProviderServices } from './provider-services';

/** A lane as the bench runs it: its queue pair and its sender, with the variables synth writes for the lane. */
interface BenchLane extends LocalLaneSender {
  readonly queue: { readonly queueUrl: string; readonly queueArn: string; readonly dlqUrl: string };
}

/**
 * The stack a blast round runs: the stack's two lanes (or `lanes: false`, the stack before lanes) at the round's
 * concurrency, bulk rate share and redrive, the local quota as `sendRates.emailPerSecond`, every other setting
 * the stack's default (function timeout 30 s, claim 120 s, send 10 s, 16 sends in flight, visibility 180 s).
 */
export function blastStack(
  options: Pick<BlastScenarioOptions, 'lanes' | 'emailQuota' | 'maxConcurrency' | 'urgentMaxConcurrency' | 'bulkRateShare' | 'batchSize' | 'maxReceiveCount'>,
): LocalStack {
  return {
    props: {
      emailFrom: BENCH_EMAIL_FROM,
      sendRates: { emailPerSecond: options.emailQuota },
      maxConcurrency: options.maxConcurrency,
      batchSize: options.batchSize,
      maxReceiveCount: options.maxReceiveCount,
      lanes: options.lanes ? { urgentMaxConcurrency: options.urgentMaxConcurrency, bulkRateShare: options.bulkRateShare } : false,
    },
  };
}

/**
 * Runs the blast: `blast` marketing e-mails on the queue at once, then login codes at `codesPerSecond`
 * for `codesForMs`, drained by the real sender(s) wired as Lambda wires them, against a local SES that
 * throttles above `emailQuota`. Each sender loads the variables synth writes for its lane ({@link blastStack});
 * without lanes one sender paces at the whole account rate, as the stack did before lanes.
 */
export async function runBlastScenario(options: BlastScenarioOptions): Promise<BlastRunResult> {
  const stack = resolveLocalStack(blastStack(options));
  const [dynamo, services] = await Promise.all([
    startLocalDynamo({ separateProcess: true }),
    startProviderServices({
      visibilityTimeoutSeconds: stack.queue.visibilityTimeoutSeconds,
      maxReceiveCount: stack.queue.maxReceiveCount,
      emailPerSecond: options.emailQuota,
      smsPerSecond: options.emailQuota,
      extraQueues: options.lanes ? ['notifier-bulk'] : [],
    }),
  ]);
  const tableName = `blast-${randomUUID().slice(0, 8)}`;
  // Each lane's variables are given to its own loadSenderConfig, not to the process.
  const restore = applyBenchEnvironment(dynamo.endpoint, services);
  try {
    const queues = [services.queue, ...(options.lanes ? [services.extraQueues['notifier-bulk']!] : [])];
    const lanes: BenchLane[] = localLaneSenders(stack, {
      tableName,
      queues: queues.map((queue) => ({ queueUrl: queue.queueUrl, deadLetterQueueUrl: queue.dlqUrl })),
    }).map((sender, index) => ({ ...sender, queue: queues[index]! }));
    const metrics = new InMemoryMetrics();
    const requests: Record<string, RequestCountsByChannel> = {};
    const logCounts: Record<string, number> = {};
    const sentLatenciesMs: number[] = [];
    const wirings = lanes.map((lane) => {
      const config = loadSenderConfig(lane.environment);
      const laneRequests: RequestCountsByChannel = (requests[lane.name] = {});
      const wiring = createLambdaWiring(
        config,
        { metrics, log: countingLog(logCounts), wrapProvider: (provider) => new CountingProvider(provider, laneRequests, sentLatenciesMs) },
        stack.queue.visibilityTimeoutSeconds * 1000,
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
