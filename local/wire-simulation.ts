import { countsOf, mergedDimensions } from './metric-counts';
import { LEDGER_REQUEST_TIMEOUT_MS } from '../functions/adapters/ledger-client-config';
import { ensureLedgerTable } from '../functions/adapters/ledger-table-setup';
import type { LedgerState } from '../functions/core/ledger/ledger-record';
import { silentLog, type LogPort } from '../functions/core/observability/log-port';
import { METRIC, type MetricName } from '../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import type { LaneName } from '../functions/core/policy/send-lanes';
import { ENV } from '../functions/core/sender-config';
import { repositoryTemplates } from '../functions/adapters/template-directory';
import { planMessages } from '../functions/delivery/message-plan';
import { startLocalAws } from './aws/local-aws';
import { queueDepth } from './aws/queue-inspection';
import { LedgerOutageSchedule, type LedgerOutageCounts, type LedgerOutageOptions } from './aws/ledger-outage';
import { pushDuplicateCounts, type PushDuplicateCounts } from './aws/push-device-view';
import { startWireFaultProxy } from './aws/wire-fault-proxy';
import { ledgerKeyOf, PROVIDER_SENDS, providerKeyOf, WireFaultPlan, wireFaults, type WireFaultKind, type WireFaultRates } from './aws/wire-fault-plan';
import { judgeWireRun, wireVerdictHolds, type WireVerdict } from './aws/wire-verdict';
import { applyLocalSdkEnvironment } from './local-lambda';
import { startLocalLanes, type LocalLane } from './local-lanes';
import { resolveLocalStack } from './local-stack';
import { killedByTimeout, killedKeys, PaceWatch, SendTimeoutLog } from './wire-run-watch';
import { wireStack, type WireStackOptions } from './wire-stack';
import { LOCAL_SMS_CONFIGURATION_SET, startLocalSmsEvents, type LocalSmsEvents } from './aws/local-sms-events';
import { systemClock } from '../functions/core/clock';
import { ReclaimerTimer } from './reclaimer-timer';
import { scanLedger } from './senders/this-sender';
import { generateWorkload } from './workload';
import { emailEvidenceReport, emailSettlement, startWireEmailEvidence, wireSesEventOptions, type EmailEventFaults, type EmailEvidenceReport, type EmailSettlement } from './wire-email-evidence';
import type { LocalSesEvents } from './aws/local-ses-events';
import { wireSmsDeliveryLogs, type SmsDeliveryLogCounts } from './wire-sms-delivery-logs';
import { DEFAULT_OUTCOME_FAULTS, startWireOutcomeFeed, type WireOutcomeFeedReport } from './wire-outcome-feed';
import type { OutcomeFaultRates } from './aws/outcome-fault-plan';
import type { OutcomePublisher } from '../functions/outcomes/create-outcome-publisher';
import { outcomeFeedHolds } from './outcome-feed-check';
import type { FallbackTrigger } from '../functions/fallback/create-fallback-trigger';
import { attachWireFallback } from './wire-fallback';
import { wireFallbacksHold, type WireFallbackReport } from './wire-fallback-report';
import { sendBatch } from './send-batch';
import { claimOf } from './wire-request-trace';

/** Knobs of one wire-level simulation. */
export interface WireSimulationOptions extends WireStackOptions {
  /** Queue messages, duplicates included. @default 1000 */
  readonly events?: number;
  /** @default 0.3 */
  readonly duplicateRate?: number;
  /** @default 1 */
  readonly seed?: number;
  /** Per-request fault rates. @default every kind at 0.01 */
  readonly faults?: Partial<WireFaultRates>;
  /** Whole-ledger outages at seeded times (every DynamoDB request fails while one lasts). @default none (seconds 0) */
  readonly ledgerOutage?: LedgerOutageOptions;
  /** Share of texts whose evidence (End User Messaging's events, SNS's delivery logs) comes past the evidence windows, and that is lost. @default 0.01 each */
  readonly smsEventFaults?: { readonly late: number; readonly lost: number };
  /** Share of e-mails whose SES events come past the evidence windows, and that are lost. @default 0.01 each */
  readonly emailEventFaults?: EmailEventFaults;
  /** The outcome publisher's faults (kills around PutEvents, failed entries). @default DEFAULT_OUTCOME_FAULTS */
  readonly outcomeFaults?: Partial<OutcomeFaultRates>;
  /** Wraps the outcome publisher (a test's deliberate defect: an event dropped). @default the publisher as is */
  readonly wrapOutcomePublisher?: (publisher: OutcomePublisher) => OutcomePublisher;
  /** Wraps the channel fallback trigger (a test's deliberate defect: a request dropped). @default the trigger as is */
  readonly wrapFallbackTrigger?: (trigger: FallbackTrigger) => FallbackTrigger;
  /** @default silent */
  readonly log?: LogPort;
  /** Called once the lanes have started, with each lane's environment (the IAM check maps its resources). @default none */
  readonly onLanes?: (lanes: readonly LocalLane[]) => void;
  /** About once a second. */
  readonly onProgress?: (progress: { readonly injected: number; readonly total: number; readonly inQueue: number; readonly sent: number; readonly elapsedMs: number }) => void;
}

/** What one wire-level run did and how it is judged. */
export interface WireSimulationReport {
  readonly settings: Required<Omit<WireSimulationOptions, 'log' | 'onProgress' | 'onLanes' | 'faults' | 'outcomeFaults' | 'wrapOutcomePublisher' | 'wrapFallbackTrigger'>> & { readonly faults: WireFaultRates };
  /** The outcome feed (the ledger's stream -> the publisher -> the bus) under its faults: nothing missing, every copy explained. */
  readonly outcomeFeed: WireOutcomeFeedReport;
  /** Channel fallback (the ledger's stream -> the trigger -> the senders' queues) under the run's faults: the zeros of local/wire-fallback-report.ts. */
  readonly fallback: WireFallbackReport;
  /** SMS messages whose text may have gone out twice (`ResentAfterAmbiguity`) and SMS rows left `UNKNOWN`; texts whose evidence (events, SNS delivery logs) was held or lost; SNS's log lines. */
  readonly sms: { readonly possibleDuplicates: number; readonly unknown: number; readonly eventsLate: number; readonly eventsLost: number; readonly deliveryLogs: SmsDeliveryLogCounts };
  /** SES's events on their path (topic -> queue -> status event source), and how ambiguous e-mails were settled. */
  readonly email: EmailEvidenceReport & EmailSettlement;
  readonly verdict: WireVerdict;
  /** Push duplicates as SNS accepted them (each billed, each waking a device) and as the devices would show them. */
  readonly pushDuplicates: PushDuplicateCounts;
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
  /** Each lane as it ran, judged on its own messages: the urgent lane first. */
  readonly lanes: readonly WireLaneReport[];
}

/** One lane of a wire run: its sender's environment (synth's, scaled), the verdict on its messages, what it counted. */
export interface WireLaneReport {
  readonly name: LaneName | 'single';
  readonly maxConcurrency: number;
  readonly environment: Readonly<Record<string, string>>;
  readonly verdict: WireVerdict;
  readonly metrics: Readonly<Record<string, number>>;
  readonly deadLettered: number;
  readonly invocations: number;
  readonly killedInvocations: number;
  /** Throttled sends the lane's senders made again in place, claim held (its pauses). */
  readonly inPlaceRetries: number;
  /** What the lane's governors did: the throttling answers they heard, and how many of those cut their pace (a yield). */
  readonly pace: { readonly throttlingAnswers: number; readonly cuts: number };
  /** The lane's ambiguous e-mails settled by SES's evidence, and by their class's wait. */
  readonly email: EmailSettlement;
}

/**
 * Runs both lanes of the stack as synth configures them ({@link wireStack}): each lane's Lambda sender wired
 * exactly as in Lambda (real SDK clients, DELIVERY_MODE=aws) from the variables synth writes for the lane,
 * behind its own queue on a real SQS emulator and a Lambda-like event source, with every DynamoDB, SES v2
 * and SNS request passing a seeded fault-injecting proxy; then judges the run, and each lane, from the local
 * providers' own counts, and each lane's governors against what its environment says.
 */
export async function runWireSimulation(options: WireSimulationOptions = {}): Promise<WireSimulationReport> {
  const stack = resolveLocalStack(wireStack(options));
  const settings = {
    events: options.events ?? 1000,
    duplicateRate: options.duplicateRate ?? 0.3,
    seed: options.seed ?? 1,
    concurrency: stack.settings.maxConcurrency,
    urgentConcurrency: stack.lanes[0]!.maxConcurrency,
    batchSize: stack.settings.batchSize,
    sendsPerInvocation: stack.settings.maxConcurrentSends,
    maxReceiveCount: stack.settings.maxReceiveCount,
    faults: { ...wireFaults(0.01), ...options.faults },
    ledgerOutage: options.ledgerOutage ?? { seconds: 0, everySeconds: 30 },
    smsProvider: options.smsProvider ?? 'sns',
    smsEventFaults: options.smsEventFaults ?? { late: 0.01, lost: 0.01 },
    emailEventFaults: options.emailEventFaults ?? { late: 0.01, lost: 0.01 },
  };
  const started = Date.now();
  const plan = new WireFaultPlan(settings.seed, settings.faults, { clientTimeoutMs: LEDGER_REQUEST_TIMEOUT_MS });
  const tableName = `notifier-ledger-wire-${settings.seed}`;
  const statusMetrics = new InMemoryMetrics();
  // Evidence reaches the status function as on AWS (SES: topic -> queue; SNS's SMS logs: subscription), late or lost only as the plan says.
  let sesEvents: LocalSesEvents | undefined;
  const smsLogs = wireSmsDeliveryLogs(plan, settings.smsEventFaults, { tableName, metrics: statusMetrics, log: options.log ?? silentLog });
  const aws = await startLocalAws({
    dynamo: { separateProcess: true },
    ses: { contactListName: stack.settings.consent.contactListName, ...wireSesEventOptions(plan, settings.emailEventFaults, () => sesEvents) },
    sns: smsLogs.snsOptions,
    sqs: stack.queue,
  });
  const outage = new LedgerOutageSchedule(settings.seed, settings.ledgerOutage);
  // The ledger's stream sits behind the fault proxy, in front of DynamoDB: what executes there reaches it.
  const outcomeFeed = await startWireOutcomeFeed({
    dynamoEndpoint: aws.dynamo.endpoint,
    stack,
    seed: settings.seed,
    faults: { ...DEFAULT_OUTCOME_FAULTS, ...options.outcomeFaults },
    log: options.log ?? silentLog,
    ...(options.wrapOutcomePublisher ? { wrapPublisher: options.wrapOutcomePublisher } : {}),
  });
  const [dynamoProxy, sesProxy, snsProxy] = await Promise.all([
    startWireFaultProxy({ service: 'dynamodb', target: outcomeFeed.dynamoEndpoint, decide: outage.decider(plan.deciderFor('dynamodb')) }),
    startWireFaultProxy({ service: 'sesv2', target: aws.ses.endpoint, decide: plan.deciderFor('sesv2') }),
    startWireFaultProxy({ service: 'sns', target: aws.sns.endpoint, decide: plan.deciderFor('sns') }),
  ]);
  const smsEvents: LocalSmsEvents | undefined =
    settings.smsProvider === 'end-user-messaging'
      ? await startLocalSmsEvents({
          sqs: aws.sqs,
          tableName,
          decide: plan.deciderFor('sms-voice'),
          // Late: past the 3 s windows, so the class's policy acts first and the events only enrich the row.
          eventFate: (key, event) => plan.eventFate(key, event.messageId, settings.smsEventFaults, 5_000),
          metrics: statusMetrics,
          log: options.log ?? silentLog,
          clock: systemClock,
        })
      : undefined;
  sesEvents = await startWireEmailEvidence(aws, { tableName, metrics: statusMetrics, log: options.log ?? silentLog, clock: systemClock });
  const restoreEnvironment = applyLocalSdkEnvironment(aws, {
    ...outcomeFeed.sdkEnvironment,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy.endpoint,
    AWS_ENDPOINT_URL_SESV2: sesProxy.endpoint,
    AWS_ENDPOINT_URL_SNS: snsProxy.endpoint,
    ...(smsEvents ? { AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: smsEvents.environment.AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2! } : {}),
  });
  try {
    const metricsOf = new Map<string, InMemoryMetrics>();
    const pace = new PaceWatch();
    const timeouts = new SendTimeoutLog(options.log ?? silentLog);
    // Each lane's sender as synth configures it; every lane's logs in one place (resends are counted per key).
    const { lanes, laneOf, allEmpty } = await startLocalLanes(aws, stack, {
      tableName,
      smsConfigurationSetName: LOCAL_SMS_CONFIGURATION_SET,
      wiring: (lane) => ({
        metrics: metricsOf.set(lane, new InMemoryMetrics()).get(lane)!,
        log: timeouts.forLane(lane),
        wrapGovernor: (governor) => pace.watch(lane, governor),
      }),
    });
    options.onLanes?.(lanes);
    const fallback = attachWireFallback({ stream: outcomeFeed.stream, tableName, lanes, stack, metrics: metricsOf.set('fallback', new InMemoryMetrics()).get('fallback')!, log: options.log ?? silentLog, wrapTrigger: options.wrapFallbackTrigger });
    const metrics = { get: (name: MetricName) => [...metricsOf.values()].reduce((sum, m) => sum + m.get(name), 0) };
    const admin = aws.dynamo.client();
    await ensureLedgerTable(admin, tableName);

    const workload = generateWorkload({ messages: settings.events, duplicateRate: settings.duplicateRate, seed: settings.seed });
    const sqs = aws.sqs.client();
    // The stack gives the reclaimer the urgent lane's environment.
    const reclaimerLane = lanes[0]!;
    const reclaimer = new ReclaimerTimer(reclaimerLane.wiring, reclaimerLane.wiring.timing, reclaimerLane.config.claimTimeoutMs);
    reclaimer.start();
    let injected = 0;
    let producerDone = false;
    const progress = options.onProgress
      ? setInterval(() => {
          void Promise.all(lanes.map((lane) => queueDepth(sqs, lane.queue.queueUrl))).then(
            (depths) =>
              options.onProgress?.({
                injected,
                total: workload.items.length,
                inQueue: depths.reduce((sum, depth) => sum + depth.visible + depth.inFlight + depth.delayed, 0),
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
        // The event topic routes each event into its lane's queue.
        const chunk = workload.items.slice(i, i + 10).map((item) => item.body);
        for (const lane of lanes) {
          const bodies = chunk.filter((body) => laneOf(body) === lane);
          if (bodies.length > 0) await sendBatch(sqs, lane.queue.queueUrl, bodies, bodyOfMessage);
        }
        injected = Math.min(workload.items.length, i + 10);
      }
      producerDone = true;
    };
    try {
      const done = fallback.doneWhen(() => producerDone, () => allEmpty(sqs)); // the queues empty, every write read by the trigger
      await Promise.all([produce(), ...lanes.map((lane) => lane.source.run(done))]);
      // Rows a dead attempt left PENDING: the scheduled reclaimer finds them once their claims are stale.
      if ([...(await scanLedger({ adminClient: admin }, tableName)).values()].some((r) => r.state === 'PENDING')) {
        await new Promise((resolve) => setTimeout(resolve, reclaimerLane.config.claimTimeoutMs + 500));
        await reclaimer.runOnce();
        // The reclaimer's settling writes may name a fallback: the senders take the requests they leave.
        await Promise.all(lanes.map((lane) => lane.source.run(done)));
      }
    } finally {
      if (progress) clearInterval(progress);
      for (const lane of lanes) lane.source.stop();
      await reclaimer.stop();
      await Promise.all([smsEvents?.stop(), smsLogs.stop(), sesEvents.stop()]);
      await fallback.stop();
    }

    const rows = await scanLedger({ adminClient: admin }, tableName);
    const outcomeFeedReport = await outcomeFeed.finish(rows.values());
    const finalStates = new Map<string, LedgerState>([...rows].map(([key, row]) => [key, row.state]));
    const accepted = new Map<string, number>();
    for (const counts of [aws.ses.acceptedPerKey(), aws.sns.acceptedPerKey(), smsEvents?.eum.acceptedPerKey() ?? new Map<string, number>()]) {
      for (const [key, n] of counts) accepted.set(key, (accepted.get(key) ?? 0) + n);
    }
    const deliverable: string[] = [];
    const planned: string[] = [];
    const laneOfKey = new Map<string, LocalLane>();
    const plansOf = (event: (typeof workload.events)[number]) => {
      const messageClass = reclaimerLane.config.messageClasses.get(event.messageClass);
      return messageClass ? planMessages(event, messageClass, repositoryTemplates()) : [];
    };
    for (const event of workload.events) {
      const lane = laneOf(JSON.stringify(event));
      for (const p of plansOf(event)) {
        (p.prepared.ok ? deliverable : planned).push(p.key);
        laneOfKey.set(p.key, lane);
      }
    }
    const eventsByBody = new Map(workload.events.map((event) => [JSON.stringify(event), event]));
    const invocations = lanes.flatMap((lane) => lane.source.invocations);
    const killed = killedKeys(invocations, bodyOfMessage, (body) => {
      const event = eventsByBody.get(body);
      return event ? plansOf(event).map((p) => p.key) : [];
    });
    const rejectedKeys = new Set(plan.providerRequests.filter((r) => r.fault === 'providerRejection').map((r) => r.key));
    const providerRequests = [...sesProxy.requests, ...snsProxy.requests, ...(smsEvents?.proxy.requests ?? [])].flatMap((r) => {
      const key = providerKeyOf(r);
      if (key === undefined || !PROVIDER_SENDS.has(r.operation)) return [];
      return [{ key, reachedWithoutAnswer: r.reachedService && r.serviceAnswerDelivered !== true, rejected: rejectedKeys.has(key) }];
    });
    const judge = (keys: readonly string[]) =>
      judgeWireRun({
        deliverableKeys: keys,
        acceptedPerKey: accepted,
        finalStates,
        providerRequests,
        senderTimeouts: timeouts.perKeyPrefix,
        killedInFlight: killed,
        countedResends: timeouts.resendsPerKeyPrefix,
      });
    const verdict = judge(deliverable);
    const laneReports: WireLaneReport[] = [];
    for (const lane of lanes) {
      const dlq = await queueDepth(sqs, lane.queue.dlqUrl);
      laneReports.push({
        name: lane.name,
        maxConcurrency: lane.maxConcurrency,
        environment: lane.environment,
        verdict: judge(deliverable.filter((key) => laneOfKey.get(key) === lane)),
        metrics: countsOf((name) => metricsOf.get(lane.name)?.get(name) ?? 0),
        deadLettered: dlq.visible + dlq.inFlight,
        invocations: lane.source.invocations.length,
        killedInvocations: lane.source.invocations.filter(killedByTimeout).length,
        inPlaceRetries: timeouts.inPlacePerLane.get(lane.name) ?? 0,
        pace: pace.of(lane.name),
        email: emailSettlement(metricsOf.get(lane.name)),
      });
    }
    const named = [...new Set(Object.values(verdict.examples).flat())].slice(0, 5);
    const traces = Object.fromEntries(
      named.map((key) => [
        key,
        [
          ...[
            ...dynamoProxy.requests.filter((r) => ledgerKeyOf(r) === key),
            ...[...sesProxy.requests, ...snsProxy.requests, ...(smsEvents?.proxy.requests ?? [])].filter((r) => providerKeyOf(r) === key),
          ]
            .sort((a, b) => a.at - b.at)
            .map((r) => `+${r.at - started} ms ${r.service} ${r.ledgerWrite ?? r.operation}${claimOf(r.body)}: ${r.fault}${r.serviceAnswerDelivered === false && r.reachedService ? ' (answer not delivered)' : ''}`),
          `final ${finalStates.get(key) ?? 'missing'}, accepted ${accepted.get(key) ?? 0}`,
        ],
      ]),
    );
    return {
      settings,
      sms: {
        possibleDuplicates: [...metricsOf.values()].flatMap((m) => [...m.byDimensions]).filter(([k]) => k.startsWith(`${METRIC.ResentAfterAmbiguity}|sms|`)).reduce((n, [, v]) => n + v, 0),
        unknown: [...rows.values()].filter((row) => row.channel === 'sms' && row.state === 'UNKNOWN').length,
        eventsLate: plan.events.late, eventsLost: plan.events.lost, deliveryLogs: { ...smsLogs.counts },
      },
      email: { ...(await emailEvidenceReport(plan, sesEvents, aws)), ...emailSettlement(mergedDimensions(metricsOf.values())) },
      verdict,
      outcomeFeed: outcomeFeedReport,
      fallback: fallback.judge({ rows, acceptedPerKey: accepted, messageClasses: reclaimerLane.config.messageClasses, verdictOf: judge }),
      pushDuplicates: pushDuplicateCounts(aws.sns.accepted()),
      traces,
      plannedFailures: {
        messages: planned.length,
        failed: planned.filter((key) => finalStates.get(key) === 'FAILED').length,
        accepted: planned.reduce((sum, key) => sum + (accepted.get(key) ?? 0), 0),
      },
      injected: { ...plan.injected },
      ledgerOutages: { ...outage.injected, windows: outage.startedWindows },
      requests: { dynamodb: dynamoProxy.requests.length, sesv2: sesProxy.requests.length, sns: snsProxy.requests.length },
      metrics: countsOf((name) => metrics.get(name)),
      deadLettered: laneReports.reduce((sum, lane) => sum + lane.deadLettered, 0),
      invocations: invocations.length,
      killedInvocations: invocations.filter(killedByTimeout).length,
      reclaimerRuns: reclaimer.runs.length,
      wallMs: Date.now() - started,
      lanes: laneReports,
    };
  } finally {
    // After a failure before the events path was drained: its pollers end with the run.
    sesEvents.source.stop();
    restoreEnvironment();
    await Promise.all([dynamoProxy.stop(), sesProxy.stop(), snsProxy.stop()]);
    await outcomeFeed.stop();
    await aws.stop();
  }
}

/**
 * Whether the run kept every promise: the verdict holds, each lane's governors did what its environment says (a
 * lane that yields to throttling cut its pace on the throttling answers it heard, one that does not never did),
 * every row that reached a producer-visible state produced its event (none missing, every copy explained), and
 * channel fallback kept its zeros (none while the primary may have arrived, none missing, none twice).
 */
export function wireRunHolds(report: Pick<WireSimulationReport, 'verdict' | 'lanes' | 'outcomeFeed' | 'fallback'>): boolean {
  const paced = report.lanes.every((lane) => paceAsConfigured(lane));
  return wireVerdictHolds(report.verdict) && paced && outcomeFeedHolds(report.outcomeFeed) && wireFallbacksHold(report.fallback);
}

/** A lane's governors cut their pace only if the lane yields to throttling, and then on the first throttling answer at least. */
export function paceAsConfigured(lane: Pick<WireLaneReport, 'environment' | 'pace'>): boolean {
  const yields = lane.environment[ENV.sendRateYieldsToThrottling] === 'true';
  return yields ? lane.pace.throttlingAnswers === 0 || lane.pace.cuts > 0 : lane.pace.cuts === 0;
}
