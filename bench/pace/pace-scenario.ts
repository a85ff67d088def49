import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import type { LogPort } from '../../functions/core/observability/log-port';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { loadSenderConfig } from '../../functions/core/sender-config';
import type { BackoffSettings } from '../../functions/core/queue/visibility-backoff';
import { applyEnvironment } from '../../local/aws/process-environment';
import { queueDepth, queueIsEmpty, readAllVisible } from '../../local/aws/queue-inspection';
import { SqsEventSource } from '../../local/aws/sqs-event-source';
import { createLambdaWiring } from '../../local/lambda-wiring';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS, startLocalDynamo } from '../../local/local-dynamo';
import type { ProgressLine } from '../../local/progress-line';
import { localLaneSenders, resolveLocalStack, type LocalStack } from '../../local/local-stack';
import { ReclaimerTimer } from '../../local/reclaimer-timer';
import { quantile } from '../../local/stats';
import { scanLedger } from '../../local/senders/this-sender';
import { CpuSampler } from './cpu-sampler';
import { CountingProvider, type RequestCountsByChannel } from './counting-provider';
import { startProviderServices, type ProviderServices } from './provider-services';
import { summarisePaceRun, type PaceRunResult } from './pace-result';
import { paceWorkload, type PaceChannel } from './pace-workload';

/** One provider-pace run. */
export interface PaceScenarioOptions {
  readonly label: string;
  readonly messages: number;
  /** The stack's `sendRates` at the quotas (SEND_RATE_{EMAIL,SMS}_PER_SECOND); off sets none. */
  readonly rateLimiting: boolean;
  /** The local providers' sends per second (their `maxPerSecond`). */
  readonly quotas: Readonly<Record<PaceChannel, number>>;
  /** The stack's `maxConcurrency`: the event source's, and SEND_RATE_SHARES is one more (the reclaimer's). */
  readonly maximumConcurrency: number;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  /** THROTTLE_BACKOFF_{BASE,CAP}_SECONDS, scaled down from the stack's. @default the stack's */
  readonly backoff?: BackoffSettings;
  /** Give up waiting for the queue to drain after this long (the figures then say so). */
  readonly maxDrainMs: number;
  readonly log: (line: string) => void;
  /** Shows the drain's progress every 10 s (one redrawn line in a terminal). @default a line through `log` */
  readonly progress?: ProgressLine;
}

/** The From address of the bench stacks (a deployable domain: the local stacks are checked as synth checks them). */
export const BENCH_EMAIL_FROM = 'notifications@mail.shop-notifier.dev';

/**
 * The stack a pace round runs: without lanes (one queue, one sender), the stack's defaults (function
 * timeout 30 s, claim 120 s, send 10 s, 16 sends in flight, visibility 6 x the function timeout), the
 * round's concurrency, redrive and batch, and with rate limiting the quotas as `sendRates`.
 */
export function paceStack(options: Pick<PaceScenarioOptions, 'rateLimiting' | 'quotas' | 'maximumConcurrency' | 'batchSize' | 'maxReceiveCount' | 'backoff'>): LocalStack {
  return {
    props: {
      emailFrom: BENCH_EMAIL_FROM,
      lanes: false,
      maxConcurrency: options.maximumConcurrency,
      batchSize: options.batchSize,
      maxReceiveCount: options.maxReceiveCount,
      ...(options.rateLimiting ? { sendRates: { emailPerSecond: options.quotas.email, smsPerSecond: options.quotas.sms } } : {}),
    },
    ...(options.backoff ? { scaled: { throttleBackoffBaseSeconds: options.backoff.baseSeconds, throttleBackoffCapSeconds: options.backoff.capSeconds } } : {}),
  };
}

export const UNSET_FOR_THE_RUN = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', 'AWS_ENDPOINT_URL'];

/**
 * The process environment of a bench run: the loopback endpoints and credentials the SDK clients read.
 * The senders' own variables are not the process's: each loads those synth writes for its lane. Returns the restore.
 */
export function applyBenchEnvironment(dynamoEndpoint: string, services: Pick<ProviderServices, 'endpoints'>): () => void {
  return applyEnvironment(
    {
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_ENDPOINT_URL_SQS: services.endpoints.sqs,
      AWS_ENDPOINT_URL_SESV2: services.endpoints.ses,
      AWS_ENDPOINT_URL_SNS: services.endpoints.sns,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOOPBACK_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOOPBACK_CREDENTIALS.secretAccessKey,
    },
    UNSET_FOR_THE_RUN,
  );
}

/** Counts the sender's warnings and errors by message (and error name), printing none. */
export function countingLog(counts: Record<string, number>): LogPort {
  const bump = (level: string) => (message: string, attributes?: Record<string, unknown>) => {
    const error = attributes?.error;
    const name = typeof error === 'object' && error !== null && 'name' in error ? `: ${String(error.name)}` : '';
    const cause = typeof attributes?.cause === 'string' ? ` (${attributes.cause})` : '';
    const key = `${level} ${message}${cause}${name}`;
    counts[key] = (counts[key] ?? 0) + 1;
  };
  return { info: () => undefined, warn: bump('warn'), error: bump('error') };
}

/**
 * Sends a burst of `messages` to the local SQS queue at once, then drains it with the real sender
 * wired as Lambda wires it (createLambdaWiring over loadSenderConfig) through local SES v2 and
 * SNS that enforce the quotas with the providers' throttling errors. Fresh local services each
 * run: dynalite in one child process, SQS, SES and SNS in another, the sender in this one.
 */
export async function runPaceScenario(options: PaceScenarioOptions): Promise<PaceRunResult> {
  const stack = resolveLocalStack(paceStack(options));
  // Each in its own process: the sender's event loop is not shared with the servers it calls.
  const [dynamo, services] = await Promise.all([
    startLocalDynamo({ separateProcess: true }),
    startProviderServices({
      visibilityTimeoutSeconds: stack.queue.visibilityTimeoutSeconds,
      maxReceiveCount: stack.queue.maxReceiveCount,
      emailPerSecond: options.quotas.email,
      smsPerSecond: options.quotas.sms,
    }),
  ]);
  const { queueUrl, queueArn, dlqUrl } = services.queue;
  const tableName = `pace-${randomUUID().slice(0, 8)}`;
  const restore = applyBenchEnvironment(dynamo.endpoint, services);
  try {
    const [sender] = localLaneSenders(stack, { tableName, queues: [{ queueUrl, deadLetterQueueUrl: dlqUrl }] });
    // The cold start: the variables synth writes for the one lane, validated as the handler does.
    const config = loadSenderConfig(sender!.environment);
    const metrics = new InMemoryMetrics();
    const requests: RequestCountsByChannel = {};
    const logCounts: Record<string, number> = {};
    const wiring = createLambdaWiring(
      config,
      { metrics, log: countingLog(logCounts), wrapProvider: (provider) => new CountingProvider(provider, requests) },
      stack.queue.visibilityTimeoutSeconds * 1000,
    );
    const admin = dynamo.client();
    await ensureLedgerTable(admin, tableName);
    const sqs = services.sqsClient();
    const workload = paceWorkload(options.messages, tableName, Date.now());

    const enqueueStarted = Date.now();
    await enqueueBurst(sqs, queueUrl, workload.bodies);
    const enqueueMs = Date.now() - enqueueStarted;
    options.log(`  ${options.label}: ${workload.bodies.length} messages on the queue in ${(enqueueMs / 1000).toFixed(1)} s; draining ...`);

    const source = new SqsEventSource({
      client: sqs,
      queueUrl: queueUrl,
      queueArn: queueArn,
      createHandler: (env) => wiring.createHandler(env),
      functionTimeoutMs: config.functionTimeoutMs,
      batchSize: options.batchSize,
      maximumConcurrency: options.maximumConcurrency,
      waitTimeSeconds: 1,
    });
    const reclaimer = new ReclaimerTimer(wiring, wiring.timing, config.claimTimeoutMs);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    const cpuSampler = new CpuSampler();
    cpuSampler.start();
    const drainStarted = Date.now();
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      source.stop();
    }, options.maxDrainMs);
    const progress = setInterval(() => {
      void queueDepth(sqs, queueUrl).then(
        (d) => {
          const elapsedMs = Date.now() - drainStarted;
          const sent = metrics.get(METRIC.Sent);
          const status = `sent ${sent}, throttled ${metrics.get(METRIC.ProviderThrottled)}, queue ${d.visible} visible / ${d.inFlight} in flight`;
          const line = `  ${options.label}: ${Math.round(elapsedMs / 1000)} s, ${status}`;
          if (options.progress) options.progress.update({ done: sent, total: workload.bodies.length, elapsedMs, text: `${options.label}: ${status}`, plain: line });
          else options.log(line);
        },
        () => undefined,
      );
    }, 10_000);
    loopDelay.enable();
    reclaimer.start();
    try {
      await source.run(() => queueIsEmpty(sqs, queueUrl));
    } finally {
      clearTimeout(watchdog);
      clearInterval(progress);
      loopDelay.disable();
      cpuSampler.stop();
      source.stop();
      await reclaimer.stop();
    }
    // The drain ends with the last acknowledgement, not when an idle poller noticed it.
    const lastAck = source.invocations.reduce((last, i) => (i.deleted > 0 ? Math.max(last, i.startedAt + i.durationMs) : last), drainStarted);

    const depth = await queueDepth(sqs, queueUrl);
    const dlq = await readAllVisible(sqs, dlqUrl);
    const rows = await scanLedger({ adminClient: admin }, tableName);
    const drainMs = (timedOut ? Date.now() : lastAck) - drainStarted;
    return summarisePaceRun({
      options,
      backoff: config.backoff,
      workload,
      requests,
      metrics,
      rows: [...rows.values()],
      deadLetterReasons: dlq.map((m) => m.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.reason]?.StringValue),
      accepted: await services.acceptedSends(),
      drainStartedAt: drainStarted,
      cpuUntil: (untilMs: number) => cpuSampler.useUntil(untilMs),
      stillQueued: depth.visible + depth.inFlight + depth.delayed,
      drained: !timedOut,
      enqueueMs,
      drainMs,
      receives: source.stats.received,
      deleteFailures: source.stats.deleteFailures,
      senderWarnings: logCounts,
      invocationEndings: countEndings(source.invocations),
      invocationTimes: invocationTimes(source.invocations),
      redeliveries: source.stats.redeliveries,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    });
  } finally {
    restore();
    await Promise.allSettled([services.stop(), dynamo.stop()]);
  }
}

/** Every body on the queue before any poller starts: SendMessageBatch of 10, 8 requests at a time. */
export async function enqueueBurst(sqs: SQSClient, queueUrl: string, bodies: readonly string[]): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < bodies.length; i += 10) batches.push(bodies.slice(i, i + 10));
  let next = 0;
  const worker = async () => {
    for (let b = next++; b < batches.length; b = next++) {
      const entries = (batches[b] ?? []).map((body, i) => ({ Id: String(i), MessageBody: body }));
      const answer = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (answer.Failed?.length) throw new Error(`SendMessageBatch refused ${answer.Failed.length} entries`);
    }
  };
  // Sequential order within each worker; batches interleave, so the queue stays e-mail/SMS alternating per batch.
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Median and p90 invocation duration, and the median pause between one environment's invocations (its receives). */
function invocationTimes(invocations: readonly { readonly envId: string; readonly startedAt: number; readonly durationMs: number }[]) {
  const durations = invocations.map((i) => i.durationMs);
  const lastEnd = new Map<string, number>();
  const gaps: number[] = [];
  for (const i of [...invocations].sort((a, b) => a.startedAt - b.startedAt)) {
    const end = lastEnd.get(i.envId);
    if (end !== undefined) gaps.push(i.startedAt - end);
    lastEnd.set(i.envId, i.startedAt + i.durationMs);
  }
  return { p50Ms: quantile(durations, 0.5), p90Ms: quantile(durations, 0.9), gapP50Ms: quantile(gaps, 0.5) };
}

function countEndings(invocations: readonly { readonly ending: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { ending } of invocations) counts[ending] = (counts[ending] ?? 0) + 1;
  return counts;
}
