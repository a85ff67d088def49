import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { LEDGER_REQUEST_TIMEOUT_MS } from '../functions/adapters/ledger-client-config';
import { ensureLedgerTable } from '../functions/adapters/ledger-table-setup';
import type { LedgerState } from '../functions/core/ledger-record';
import { silentLog, type LogPort } from '../functions/core/log-port';
import { METRIC } from '../functions/core/metric-names';
import { InMemoryMetrics } from '../functions/core/metrics-recorder';
import { loadSenderConfig } from '../functions/core/sender-config';
import { repositoryTemplates } from '../functions/adapters/template-directory';
import { RESENT_AFTER_AMBIGUITY_LOG } from '../functions/delivery/deliver-message';
import { planMessages } from '../functions/delivery/message-plan';
import { startLocalAws } from './aws/local-aws';
import { queueDepth, queueIsEmpty } from './aws/queue-inspection';
import { LedgerOutageSchedule, type LedgerOutageCounts, type LedgerOutageOptions } from './aws/ledger-outage';
import { startWireFaultProxy } from './aws/wire-fault-proxy';
import { ledgerKeyOf, providerKeyOf, WireFaultPlan, wireFaults, type WireFaultKind, type WireFaultRates } from './aws/wire-fault-plan';
import { judgeWireRun, type WireVerdict } from './aws/wire-verdict';
import { applyLocalLambdaEnvironment, localEventSource } from './local-lambda';
import { createLambdaWiring } from './lambda-wiring';
import { ReclaimerTimer } from './reclaimer-timer';
import { scanLedger } from './senders/this-sender';
import { generateWorkload } from './workload';

/** Knobs of one wire-level simulation. */
export interface WireSimulationOptions {
  /** Queue messages, duplicates included. @default 1000 */
  readonly events?: number;
  /** @default 0.3 */
  readonly duplicateRate?: number;
  /** @default 1 */
  readonly seed?: number;
  /** The event source's maximum concurrency. @default 16 */
  readonly concurrency?: number;
  /** @default 10 */
  readonly batchSize?: number;
  /** MAX_CONCURRENT_SENDS inside one invocation. @default 4 */
  readonly sendsPerInvocation?: number;
  /** @default 100 (the stack's default) */
  readonly maxReceiveCount?: number;
  /** Per-request fault rates. @default every kind at 0.01 */
  readonly faults?: Partial<WireFaultRates>;
  /** Whole-ledger outages at seeded times (every DynamoDB request fails while one lasts). @default none (seconds 0) */
  readonly ledgerOutage?: LedgerOutageOptions;
  /** @default silent */
  readonly log?: LogPort;
  /** About once a second. */
  readonly onProgress?: (progress: { readonly injected: number; readonly total: number; readonly inQueue: number; readonly sent: number; readonly elapsedMs: number }) => void;
}

/** What one wire-level run did and how it is judged. */
export interface WireSimulationReport {
  readonly settings: Required<Omit<WireSimulationOptions, 'log' | 'onProgress' | 'faults'>> & { readonly faults: WireFaultRates };
  readonly verdict: WireVerdict;
  /** Messages the workload plans as FAILED (an unusable address), and how many of them any provider accepted. */
  readonly plannedFailures: { readonly messages: number; readonly failed: number; readonly accepted: number };
  readonly injected: Readonly<Record<WireFaultKind, number>>;
  /** What the ledger outages failed, and when they were (ms from the first ledger request). */
  readonly ledgerOutages: LedgerOutageCounts & { readonly windows: readonly { readonly fromMs: number; readonly toMs: number }[] };
  readonly requests: { readonly dynamodb: number; readonly sesv2: number; readonly sns: number };
  readonly metrics: Readonly<Record<string, number>>;
  readonly deadLettered: number;
  readonly invocations: number;
  /** Invocations Lambda would have killed at the function timeout. */
  readonly killedInvocations: number;
  readonly reclaimerRuns: number;
  readonly wallMs: number;
  /** For up to 5 keys the verdict names: every request of theirs through the proxies, in order. */
  readonly traces: Readonly<Record<string, readonly string[]>>;
}

/**
 * Timeouts scaled down (Lambda: 30 s function, 120 s claim) so redeliveries take seconds; the
 * invariants between them hold as in the stack. The transactional class's evidence wait is scaled
 * from 300 s to 3 s the same way.
 */
const WIRE_ENVIRONMENT = {
  // Generous for a 2-core machine running 16 invocations, the services and the proxies in one
  // process: a send timeout that a starved event loop misses is a real, but uninteresting, ambiguity.
  FUNCTION_TIMEOUT_SECONDS: '20',
  CLAIM_TIMEOUT_SECONDS: '21',
  SEND_TIMEOUT_MS: '2000',
  LEDGER_RETENTION_DAYS: '30',
  DELIVERY_MODE: 'aws',
  EMAIL_FROM: 'notifications@shop.test',
  SES_CONTACT_LIST_NAME: 'notifier-local',
  THROTTLE_BACKOFF_BASE_SECONDS: '1',
  THROTTLE_BACKOFF_CAP_SECONDS: '4',
  MESSAGE_CLASSES: JSON.stringify([{ name: 'transactional', onAmbiguous: 'lookup', lookupFallback: 'resend', evidenceWaitSeconds: 3 }]),
} as const;
const VISIBILITY_TIMEOUT_SECONDS = 24;

/**
 * Runs the Lambda sender, wired exactly as in Lambda (real SDK clients, DELIVERY_MODE=aws), behind
 * a real SQS emulator and a Lambda-like event source, with every DynamoDB, SES v2 and SNS request
 * passing a seeded fault-injecting proxy; then judges the run from the local providers' own counts.
 */
export async function runWireSimulation(options: WireSimulationOptions = {}): Promise<WireSimulationReport> {
  const settings = {
    events: options.events ?? 1000,
    duplicateRate: options.duplicateRate ?? 0.3,
    seed: options.seed ?? 1,
    concurrency: options.concurrency ?? 16,
    batchSize: options.batchSize ?? 10,
    sendsPerInvocation: options.sendsPerInvocation ?? 4,
    maxReceiveCount: options.maxReceiveCount ?? 100,
    faults: { ...wireFaults(0.01), ...options.faults },
    ledgerOutage: options.ledgerOutage ?? { seconds: 0, everySeconds: 30 },
  };
  const started = Date.now();
  const aws = await startLocalAws({
    dynamo: { separateProcess: true },
    sqs: { visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS, maxReceiveCount: settings.maxReceiveCount },
  });
  const plan = new WireFaultPlan(settings.seed, settings.faults, { clientTimeoutMs: LEDGER_REQUEST_TIMEOUT_MS });
  const outage = new LedgerOutageSchedule(settings.seed, settings.ledgerOutage);
  const [dynamoProxy, sesProxy, snsProxy] = await Promise.all([
    startWireFaultProxy({ service: 'dynamodb', target: aws.dynamo.endpoint, decide: outage.decider(plan.deciderFor('dynamodb')) }),
    startWireFaultProxy({ service: 'sesv2', target: aws.ses.endpoint, decide: plan.deciderFor('sesv2') }),
    startWireFaultProxy({ service: 'sns', target: aws.sns.endpoint, decide: plan.deciderFor('sns') }),
  ]);
  const tableName = `notifier-ledger-wire-${settings.seed}`;
  const restoreEnvironment = applyLocalLambdaEnvironment(aws, tableName, WIRE_ENVIRONMENT, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy.endpoint,
    AWS_ENDPOINT_URL_SESV2: sesProxy.endpoint,
    AWS_ENDPOINT_URL_SNS: snsProxy.endpoint,
    MAX_CONCURRENT_SENDS: String(settings.sendsPerInvocation),
  });
  try {
    const config = loadSenderConfig(process.env);
    const metrics = new InMemoryMetrics();
    const timeouts = new SendTimeoutLog(options.log ?? silentLog);
    const wiring = createLambdaWiring(config, { metrics, log: timeouts }, VISIBILITY_TIMEOUT_SECONDS * 1000);
    const admin = aws.dynamo.client();
    await ensureLedgerTable(admin, tableName);

    const workload = generateWorkload({ messages: settings.events, duplicateRate: settings.duplicateRate, seed: settings.seed });
    const sqs = aws.sqs.client();
    const source = localEventSource(aws, wiring, config, { batchSize: settings.batchSize, maximumConcurrency: settings.concurrency });
    const reclaimer = new ReclaimerTimer(wiring, wiring.timing, config.claimTimeoutMs);
    reclaimer.start();
    let injected = 0;
    let producerDone = false;
    const progress = options.onProgress
      ? setInterval(() => {
          void queueDepth(sqs, aws.sqs.queueUrl).then(
            (depth) =>
              options.onProgress?.({
                injected,
                total: workload.items.length,
                inQueue: depth.visible + depth.inFlight + depth.delayed,
                sent: metrics.get(METRIC.Sent),
                elapsedMs: Date.now() - started,
              }),
            () => undefined,
          );
        }, 1000)
      : undefined;
    const bodyOfMessage = new Map<string, string>();
    const produce = async () => {
      for (let i = 0; i < workload.items.length; i += 10) {
        await sendBatch(sqs, aws.sqs.queueUrl, workload.items.slice(i, i + 10).map((item) => item.body), bodyOfMessage);
        injected = Math.min(workload.items.length, i + 10);
      }
      producerDone = true;
    };
    try {
      await Promise.all([produce(), source.run(async () => producerDone && (await queueIsEmpty(sqs, aws.sqs.queueUrl)))]);
      // Rows a dead attempt left PENDING: the scheduled reclaimer finds them once their claims are stale.
      const pendingLeft = [...(await scanLedger({ adminClient: admin }, tableName)).values()].some((r) => r.state === 'PENDING');
      if (pendingLeft) {
        await new Promise((resolve) => setTimeout(resolve, config.claimTimeoutMs + 500));
        await reclaimer.runOnce();
      }
    } finally {
      if (progress) clearInterval(progress);
      source.stop();
      await reclaimer.stop();
    }

    const rows = await scanLedger({ adminClient: admin }, tableName);
    const finalStates = new Map<string, LedgerState>([...rows].map(([key, row]) => [key, row.state]));
    const accepted = new Map<string, number>();
    for (const counts of [aws.ses.acceptedPerKey(), aws.sns.acceptedPerKey()]) {
      for (const [key, n] of counts) accepted.set(key, (accepted.get(key) ?? 0) + n);
    }
    const deliverable: string[] = [];
    const planned: string[] = [];
    const plansOf = (event: (typeof workload.events)[number]) => {
      const messageClass = config.messageClasses.get(event.messageClass);
      return messageClass ? planMessages(event, messageClass, repositoryTemplates()) : [];
    };
    for (const event of workload.events) for (const p of plansOf(event)) (p.prepared.ok ? deliverable : planned).push(p.key);
    const eventsByBody = new Map(workload.events.map((event) => [JSON.stringify(event), event]));
    const killed = killedKeys(source.invocations, bodyOfMessage, (body) => {
      const event = eventsByBody.get(body);
      return event ? plansOf(event).map((p) => p.key) : [];
    });
    const dlq = await queueDepth(sqs, aws.sqs.dlqUrl);
    const rejectedKeys = new Set(plan.providerRequests.filter((r) => r.fault === 'providerRejection').map((r) => r.key));
    const providerRequests = [...sesProxy.requests, ...snsProxy.requests].flatMap((r) => {
      const key = providerKeyOf(r);
      if (key === undefined || (r.operation !== 'SendEmail' && r.operation !== 'Publish')) return [];
      return [{ key, reachedWithoutAnswer: r.reachedService && r.serviceAnswerDelivered !== true, rejected: rejectedKeys.has(key) }];
    });
    const verdict = judgeWireRun({
      deliverableKeys: deliverable,
      acceptedPerKey: accepted,
      finalStates,
      providerRequests,
      senderTimeouts: timeouts.perKeyPrefix,
      killedInFlight: killed,
      countedResends: timeouts.resendsPerKeyPrefix,
    });
    const named = [...new Set(Object.values(verdict.examples).flat())].slice(0, 5);
    const traces = Object.fromEntries(
      named.map((key) => [
        key,
        [
          ...[
            ...dynamoProxy.requests.filter((r) => ledgerKeyOf(r) === key),
            ...[...sesProxy.requests, ...snsProxy.requests].filter((r) => providerKeyOf(r) === key),
          ]
            .sort((a, b) => a.at - b.at)
            .map((r) => `+${r.at - started} ms ${r.service} ${r.ledgerWrite ?? r.operation}${claimOf(r.body)}: ${r.fault}${r.serviceAnswerDelivered === false && r.reachedService ? ' (answer not delivered)' : ''}`),
          `final ${finalStates.get(key) ?? 'missing'}, accepted ${accepted.get(key) ?? 0}`,
        ],
      ]),
    );
    return {
      settings,
      verdict,
      traces,
      plannedFailures: {
        messages: planned.length,
        failed: planned.filter((key) => finalStates.get(key) === 'FAILED').length,
        accepted: planned.reduce((sum, key) => sum + (accepted.get(key) ?? 0), 0),
      },
      injected: { ...plan.injected },
      ledgerOutages: { ...outage.injected, windows: outage.startedWindows },
      requests: { dynamodb: dynamoProxy.requests.length, sesv2: sesProxy.requests.length, sns: snsProxy.requests.length },
      metrics: Object.fromEntries(Object.values(METRIC).map((name) => [name, metrics.get(name)]).filter(([, n]) => Number(n) > 0)),
      deadLettered: dlq.visible + dlq.inFlight,
      invocations: source.invocations.length,
      killedInvocations: source.invocations.filter((i) => !['response', 'threw', 'invalid-response'].includes(i.ending)).length,
      reclaimerRuns: reclaimer.runs.length,
      wallMs: Date.now() - started,
    };
  } finally {
    restoreEnvironment();
    await Promise.all([dynamoProxy.stop(), sesProxy.stop(), snsProxy.stop()]);
    await aws.stop();
  }
}

async function sendBatch(sqs: SQSClient, queueUrl: string, bodies: readonly string[], bodyOfMessage: Map<string, string>): Promise<void> {
  const answer = await sqs.send(
    new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: body })) }),
  );
  if (answer.Failed?.length) throw new Error(`SendMessageBatch refused ${answer.Failed.length} messages: ${answer.Failed[0]?.Message ?? ''}`);
  for (const entry of answer.Successful ?? []) {
    const body = bodies[Number(entry.Id)];
    if (entry.MessageId && body !== undefined) bodyOfMessage.set(entry.MessageId, body);
  }
}

/**
 * Keys of the messages whose record was in an invocation Lambda killed (its timeout): a send of
 * theirs may have reached the provider with nobody left to record it, the same unknown as a crash.
 */
function killedKeys(
  invocations: readonly { readonly messageIds: readonly string[]; readonly ending: string }[],
  bodyOfMessage: ReadonlyMap<string, string>,
  keysOfBody: (body: string) => readonly string[],
): Map<string, number> {
  const killed = new Map<string, number>();
  for (const invocation of invocations) {
    if (invocation.ending === 'response' || invocation.ending === 'threw' || invocation.ending === 'invalid-response') continue;
    for (const messageId of invocation.messageIds) {
      const body = bodyOfMessage.get(messageId);
      if (body === undefined) continue;
      for (const key of keysOfBody(body)) killed.set(key, (killed.get(key) ?? 0) + 1);
    }
  }
  return killed;
}

/**
 * Passes the sender's logs on and counts, per key prefix, the provider calls it timed out on
 * itself: on a loaded machine an answer can arrive after the sender's abort, which no proxy sees.
 */
class SendTimeoutLog implements LogPort {
  readonly perKeyPrefix = new Map<string, number>();
  /** Resends the sender counted as possible duplicates (`ResentAfterAmbiguity`), per key prefix. */
  readonly resendsPerKeyPrefix = new Map<string, number>();
  constructor(private readonly inner: LogPort) {}
  info(message: string, attributes?: Record<string, unknown>): void {
    this.inner.info(message, attributes);
  }
  warn(message: string, attributes?: Record<string, unknown>): void {
    const reason = typeof attributes?.reason === 'string' ? attributes.reason : '';
    const key = typeof attributes?.key === 'string' ? attributes.key : undefined;
    if (message === 'Provider outcome unknown' && key && /^(SendTimeout|TimeoutError)/.test(reason)) {
      this.perKeyPrefix.set(key, (this.perKeyPrefix.get(key) ?? 0) + 1);
    }
    if (message === RESENT_AFTER_AMBIGUITY_LOG && key) this.resendsPerKeyPrefix.set(key, (this.resendsPerKeyPrefix.get(key) ?? 0) + 1);
    this.inner.warn(message, attributes);
  }
  error(message: string, attributes?: Record<string, unknown>): void {
    this.inner.error(message, attributes);
  }
}

/** The owner token and claim version a ledger request carries, for traces. */
function claimOf(body: string): string {
  try {
    const b = JSON.parse(body) as {
      Item?: Record<string, { S?: string; N?: string }>;
      ExpressionAttributeValues?: Record<string, { S?: string; N?: string }>;
    };
    const owner = b.Item?.ownerToken?.S ?? b.ExpressionAttributeValues?.[':owner']?.S;
    const version = b.Item?.claimVersion?.N ?? b.ExpressionAttributeValues?.[':version']?.N;
    return owner ? ` [${owner.slice(0, 8)} v${version ?? '?'}]` : '';
  } catch {
    return '';
  }
}
