import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import type { LogPort } from '../../functions/core/log-port';
import { METRIC } from '../../functions/core/metric-names';
import { InMemoryMetrics } from '../../functions/core/metrics-recorder';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { DEFAULT_BACKOFF, type BackoffSettings } from '../../functions/core/visibility-backoff';
import { applyEnvironment } from '../../local/aws/process-environment';
import { queueDepth, queueIsEmpty, readAllVisible } from '../../local/aws/queue-inspection';
import { SqsEventSource } from '../../local/aws/sqs-event-source';
import { createLambdaWiring } from '../../local/lambda-wiring';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS, startLocalDynamo } from '../../local/local-dynamo';
import type { ProgressLine } from '../../local/progress-line';
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
  /** Sets SEND_RATE_{EMAIL,SMS}_PER_SECOND to the quotas and SEND_RATE_SHARES; off sets none. */
  readonly rateLimiting: boolean;
  /** The local providers' sends per second (their `maxPerSecond`). */
  readonly quotas: Readonly<Record<PaceChannel, number>>;
  /** SEND_RATE_SHARES: the event source's maximum concurrency plus one for the reclaimer. */
  readonly shares: number;
  readonly maximumConcurrency: number;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  /** THROTTLE_BACKOFF_{BASE,CAP}_SECONDS. @default the built-in steps */
  readonly backoff?: BackoffSettings;
  /** Give up waiting for the queue to drain after this long (the figures then say so). */
  readonly maxDrainMs: number;
  readonly log: (line: string) => void;
  /** Shows the drain's progress every 10 s (one redrawn line in a terminal). @default a line through `log` */
  readonly progress?: ProgressLine;
}

/**
 * The sender Lambda's production defaults (lib/notifier.ts): function timeout 30 s, claim 120 s,
 * send timeout 10 s, 16 sends in flight per invocation, visibility 6 x the function timeout.
 */
export const PRODUCTION_LAMBDA_ENVIRONMENT = {
  FUNCTION_TIMEOUT_SECONDS: '30',
  CLAIM_TIMEOUT_SECONDS: '120',
  SEND_TIMEOUT_MS: '10000',
  LEDGER_RETENTION_DAYS: '30',
  MAX_CONCURRENT_SENDS: '16',
  DELIVERY_MODE: 'aws',
  EMAIL_FROM: 'notifications@example.com',
  SES_CONTACT_LIST_NAME: 'notifier-local',
} as const;
export const VISIBILITY_TIMEOUT_SECONDS = 180;
export const UNSET_FOR_THE_RUN = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', 'AWS_ENDPOINT_URL'];

/**
 * The process environment of a bench run: the loopback endpoints and credentials, the sender's production
 * variables, the ledger table and `extra`; every send-rate variable not in `extra` unset. Returns the restore.
 */
export function applyBenchEnvironment(
  dynamoEndpoint: string,
  services: Pick<ProviderServices, 'endpoints'>,
  tableName: string,
  extra: Readonly<Record<string, string>> = {},
): () => void {
  return applyEnvironment(
    {
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_ENDPOINT_URL_SQS: services.endpoints.sqs,
      AWS_ENDPOINT_URL_SESV2: services.endpoints.ses,
      AWS_ENDPOINT_URL_SNS: services.endpoints.sns,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOOPBACK_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOOPBACK_CREDENTIALS.secretAccessKey,
      ...PRODUCTION_LAMBDA_ENVIRONMENT,
      LEDGER_TABLE_NAME: tableName,
      ...extra,
    },
    [...UNSET_FOR_THE_RUN, 'SEND_RATE_EMAIL_PER_SECOND', 'SEND_RATE_SMS_PER_SECOND', 'SEND_RATE_PUSH_PER_SECOND', 'SEND_RATE_SHARES'].filter(
      (name) => !(name in extra),
    ),
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
  // Each in its own process: the sender's event loop is not shared with the servers it calls.
  const [dynamo, services] = await Promise.all([
    startLocalDynamo({ separateProcess: true }),
    startProviderServices({
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
      maxReceiveCount: options.maxReceiveCount,
      emailPerSecond: options.quotas.email,
      smsPerSecond: options.quotas.sms,
    }),
  ]);
  const { queueUrl, queueArn, dlqUrl } = services.queue;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const tableName = `pace-${randomUUID().slice(0, 8)}`;
  const restore = applyBenchEnvironment(dynamo.endpoint, services, tableName, {
    DEAD_LETTER_QUEUE_URL: dlqUrl,
    SOURCE_QUEUE_URL: queueUrl,
    THROTTLE_BACKOFF_BASE_SECONDS: String(backoff.baseSeconds),
    THROTTLE_BACKOFF_CAP_SECONDS: String(backoff.capSeconds),
    ...(options.rateLimiting
      ? {
          SEND_RATE_EMAIL_PER_SECOND: String(options.quotas.email),
          SEND_RATE_SMS_PER_SECOND: String(options.quotas.sms),
          SEND_RATE_SHARES: String(options.shares),
        }
      : {}),
  });
  try {
    const config = loadSenderConfig(process.env);
    const metrics = new InMemoryMetrics();
    const requests: RequestCountsByChannel = {};
    const logCounts: Record<string, number> = {};
    const wiring = createLambdaWiring(
      config,
      { metrics, log: countingLog(logCounts), wrapProvider: (provider) => new CountingProvider(provider, requests) },
      VISIBILITY_TIMEOUT_SECONDS * 1000,
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
      backoff,
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
