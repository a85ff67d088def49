import type { OutboxLine } from '../functions/adapters/outbox-provider';
import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import { METRIC, type MetricName } from '../functions/core/observability/metric-names';
import { repositoryTemplates } from '../functions/adapters/template-directory';
import { planMessages } from '../functions/delivery/message-plan';
import type { ReclaimerRunSummary } from '../functions/reclaimer/create-reclaimer';
import type { DynamoRequestTotals } from './dynamo-request-counter';
import { FAULT_KINDS, type FaultKind, type FaultRates } from './fault-plan';
import type { LambdaEventSource } from './lambda-event-source';
import type { LocalQueue } from './local-queue';
import type { SenderName, SenderPorts, SimulationTiming } from './senders/sender-under-test';
import { bump, quantile, round } from './stats';
import { textTable } from './text-table';
import type { MessageMeta, Workload } from './workload';

/** Per message class (and in total): what happened to its messages. */
export interface ClassReport {
  readonly messageClass: string;
  /** What the class does with an unknown outcome. */
  readonly policy: string;
  readonly messages: number;
  readonly providerCalls: number;
  /** Provider calls beyond the first per message, counted from the outbox file. */
  readonly duplicateCalls: number;
  /** ... of which resends after an unknown outcome by a `resend` class (the one allowed kind). */
  readonly resendAfterAmbiguity: number;
  readonly unexplainedDuplicates: number;
  /** Never sent, and not FAILED/UNKNOWN in the ledger (or rejected, for senders without one), nor parked in the DLQ. */
  readonly lost: number;
  /** Never settled, but its record is in the dead-letter queue (redrive it). */
  readonly parkedInDeadLetterQueue: number;
  readonly suppressedDuplicates: number;
  readonly backoffs: number;
  readonly takeovers: number;
  readonly reclaims: number;
  readonly ambiguous: { readonly outcomes: number; readonly resent: number; readonly gaveUp: number; readonly sentByEvidence: number };
  /** Final states: ledger states where there is a ledger; otherwise derived from the outbox and faults. */
  readonly finalStates: Readonly<Record<string, number>>;
  /** Ledger rows in the sparse SMS message id index (SMS sent by a provider call); 0 without a ledger. */
  readonly smsIndexEntries: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number };
}

export interface SimulationReport {
  readonly sender: SenderName;
  readonly settings: {
    readonly events: number;
    readonly duplicateRate: number;
    readonly rate: number;
    readonly concurrency: number;
    readonly batchSize: number;
    readonly sendsPerInvocation: number;
    readonly seed: number;
    readonly faults: FaultRates;
    readonly maxReceiveCount: number;
    readonly timing: SimulationTiming;
  };
  readonly workload: { readonly injected: number; readonly distinctEvents: number; readonly duplicates: number; readonly messages: number };
  readonly faultsInjected: Readonly<Record<FaultKind, number>>;
  readonly classes: readonly ClassReport[];
  readonly total: ClassReport;
  readonly throughput: {
    readonly wallMs: number;
    readonly busyMs: number;
    /** Queue messages deleted after a successful invocation. */
    readonly acknowledged: number;
    readonly injectedPerSecond: number;
    /** Queue messages acknowledged per second of busy time (at least one invocation running). */
    readonly eventsPerSecond: number;
    readonly messagesPerSecond: number;
    readonly invocations: number;
    readonly crashedInvocations: number;
    readonly timedOutInvocations: number;
    readonly coldStarts: number;
  };
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly invocationP50: number; readonly invocationP99: number };
  readonly dynamo: DynamoRequestTotals & {
    readonly requestsPerMessage: number;
    readonly writesPerMessage: number;
    readonly capacityUnitsPerMessage: number;
  };
  readonly queue: { readonly redeliveries: number; readonly deadLettered: number; readonly staleDeletes: number; readonly invalidEventsDeadLettered: number };
  /** Scheduled reclaimer runs and what they settled (absent for senders without a reclaimer). */
  readonly reclaimer: { readonly runs: number; readonly failedRuns: number; readonly found: number; readonly resent: number; readonly sentByEvidence: number; readonly gaveUp: number; readonly failed: number; readonly leftPending: number } | undefined;
  readonly outboxFile: string;
  readonly invariants: { readonly unexplainedDuplicates: number; readonly lost: number; readonly ok: boolean };
  /** The outcome counts that must be equal for equal seeds and settings (timing-dependent counts excluded). */
  readonly fingerprint: string;
}

interface ReportInput {
  readonly settings: SimulationReport['settings'] & { readonly sender: SenderName };
  readonly workload: Workload;
  readonly outbox: readonly OutboxLine[];
  readonly outboxFile: string;
  readonly rows: Map<string, LedgerRow> | undefined;
  readonly ports: SenderPorts;
  readonly queue: LocalQueue<MessageMeta>;
  readonly source: LambdaEventSource<MessageMeta>;
  readonly acks: readonly { meta: MessageMeta; latencyMs: number; receiveCount: number }[];
  readonly dynamo: DynamoRequestTotals;
  readonly timeline: {
    readonly started: number;
    readonly injectionEnded: number;
    readonly ended: number;
    readonly firstSendAt: number;
    readonly lastSendAt: number;
  };
  readonly reclaimerRuns: readonly ReclaimerRunSummary[];
  readonly reclaimerFailedRuns: number;
}

const CLASS_ORDER = ['otp', 'transactional', 'marketing'];

export function buildReport(input: ReportInput): SimulationReport {
  const { ports, rows } = input;
  const classes = buildMessageClassRegistry();
  const calls = new Map<string, number>();
  for (const line of input.outbox) bump(calls, line.key);
  const parkedEvents = new Set(input.queue.deadLetters.map((d) => d.meta.eventId));

  type Acc = { -readonly [K in keyof ClassReport]: ClassReport[K] } & { latencies: number[]; states: Map<string, number> };
  const acc = new Map<string, Acc>();
  const accOf = (name: string): Acc => {
    let a = acc.get(name);
    if (!a) {
      a = {
        messageClass: name,
        policy: policyOf(classes.get(name)),
        messages: 0,
        providerCalls: 0,
        duplicateCalls: 0,
        resendAfterAmbiguity: 0,
        unexplainedDuplicates: 0,
        lost: 0,
        parkedInDeadLetterQueue: 0,
        suppressedDuplicates: metric(ports, METRIC.DuplicateSuppressed, name),
        backoffs: metric(ports, METRIC.ConcurrentClaimBackoff, name),
        takeovers: metric(ports, METRIC.StaleClaimTakeover, name),
        reclaims: metric(ports, METRIC.ReclaimedSent, name) + metric(ports, METRIC.ReclaimedResent, name) + metric(ports, METRIC.ReclaimedGaveUp, name),
        ambiguous: {
          outcomes: metric(ports, METRIC.AmbiguousOutcome, name),
          resent: metric(ports, METRIC.ResentAfterAmbiguity, name),
          gaveUp: metric(ports, METRIC.GaveUpAfterAmbiguity, name),
          sentByEvidence: metric(ports, METRIC.SentByEvidence, name),
        },
        finalStates: {},
        smsIndexEntries: 0,
        latencyMs: { p50: 0, p99: 0 },
        latencies: [],
        states: new Map(),
      };
      acc.set(name, a);
    }
    return a;
  };

  let messages = 0;
  for (const event of input.workload.events) {
    const messageClass = classes.get(event.messageClass);
    if (!messageClass) continue;
    for (const plan of planMessages(event, messageClass, repositoryTemplates())) {
      messages += 1;
      const a = accOf(messageClass.name);
      const n = calls.get(plan.key) ?? 0;
      const extra = Math.max(0, n - 1);
      const mayResend = messageClass.onAmbiguous === 'resend';
      const explained = mayResend ? Math.min(extra, ports.plan.unrecordedReaches.get(plan.key) ?? 0) : 0;
      a.messages += 1;
      a.providerCalls += n;
      a.duplicateCalls += extra;
      a.resendAfterAmbiguity += explained;
      a.unexplainedDuplicates += extra - explained;
      const state = rows
        ? (rows.get(plan.key)?.state ?? 'none')
        : n > 0
          ? 'SENT'
          : !plan.prepared.ok || ports.plan.rejected.has(plan.key)
            ? 'FAILED'
            : 'none';
      bump(a.states, state);
      if (rows?.get(plan.key)?.smsMessageId !== undefined) a.smsIndexEntries += 1;
      // Never reached the provider and not recorded as FAILED/UNKNOWN/SUPPRESSED (a SENT row without a call counts as lost too).
      if (n === 0 && state !== 'FAILED' && state !== 'UNKNOWN' && state !== 'SUPPRESSED') {
        if (parkedEvents.has(plan.identity.eventId)) a.parkedInDeadLetterQueue += 1;
        else a.lost += 1;
      }
    }
  }
  for (const ack of input.acks) accOf(ack.meta.messageClass).latencies.push(ack.latencyMs);

  const finished = [...acc.values()]
    .sort((x, y) => rank(x.messageClass) - rank(y.messageClass))
    .map(({ latencies, states, ...rest }): ClassReport => ({
      ...rest,
      finalStates: Object.fromEntries([...states.entries()].sort()),
      latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) },
    }));
  const total = sumClasses(finished, input.acks.map((a) => a.latencyMs));

  const busyMs = Math.max(1, input.source.busyMs);
  const { started, ended } = input.timeline;
  const invocations = input.source.invocations;
  const faultsInjected = Object.fromEntries(FAULT_KINDS.map((k) => [k, ports.plan.injected[k]])) as Record<FaultKind, number>;
  const workload = {
    injected: input.workload.items.length,
    distinctEvents: input.workload.events.length,
    duplicates: input.workload.items.filter((i) => i.duplicate).length,
    messages,
  };
  const fingerprint = JSON.stringify({
    workload,
    classes: finished.map((c) => [c.messageClass, c.messages, c.providerCalls, c.duplicateCalls, c.unexplainedDuplicates, c.lost, c.finalStates]),
  });
  return {
    sender: input.settings.sender,
    settings: {
      events: input.settings.events,
      duplicateRate: input.settings.duplicateRate,
      rate: input.settings.rate,
      concurrency: input.settings.concurrency,
      batchSize: input.settings.batchSize,
      sendsPerInvocation: input.settings.sendsPerInvocation,
      seed: input.settings.seed,
      faults: input.settings.faults,
      maxReceiveCount: input.settings.maxReceiveCount,
      timing: input.settings.timing,
    },
    workload,
    faultsInjected,
    classes: finished,
    total,
    throughput: {
      wallMs: ended - started,
      busyMs,
      acknowledged: input.acks.length,
      // n sends span n - 1 intervals.
      injectedPerSecond: round(((workload.injected - 1) * 1000) / Math.max(1, input.timeline.lastSendAt - input.timeline.firstSendAt), 0),
      eventsPerSecond: round((input.acks.length * 1000) / busyMs, 0),
      messagesPerSecond: round((messages * 1000) / busyMs, 0),
      invocations: invocations.length,
      crashedInvocations: invocations.filter((i) => i.ending === 'crash').length,
      timedOutInvocations: invocations.filter((i) => i.ending === 'function-timeout').length,
      coldStarts: input.source.coldStarts,
    },
    latencyMs: {
      p50: total.latencyMs.p50,
      p99: total.latencyMs.p99,
      invocationP50: quantile(invocations.map((i) => i.durationMs), 0.5),
      invocationP99: quantile(invocations.map((i) => i.durationMs), 0.99),
    },
    dynamo: {
      ...input.dynamo,
      requestsPerMessage: round(input.dynamo.requests / Math.max(1, messages), 3),
      writesPerMessage: round(input.dynamo.writes / Math.max(1, messages), 3),
      capacityUnitsPerMessage: round(input.dynamo.capacityUnits / Math.max(1, messages), 3),
    },
    queue: {
      redeliveries: input.queue.redeliveries,
      deadLettered: input.queue.deadLetters.length,
      staleDeletes: input.queue.staleDeletes,
      invalidEventsDeadLettered: ports.deadLetters.letters.length,
    },
    reclaimer:
      input.settings.sender === 'this-sender'
        ? {
            runs: input.reclaimerRuns.length,
            failedRuns: input.reclaimerFailedRuns,
            found: input.reclaimerRuns.reduce((n, r) => n + r.found, 0),
            resent: input.reclaimerRuns.reduce((n, r) => n + r.resent, 0),
            sentByEvidence: input.reclaimerRuns.reduce((n, r) => n + r.sent, 0),
            gaveUp: input.reclaimerRuns.reduce((n, r) => n + r.gaveUp, 0),
            failed: input.reclaimerRuns.reduce((n, r) => n + r.failed, 0),
            leftPending: input.reclaimerRuns.reduce((n, r) => n + r.leftPending, 0),
          }
        : undefined,
    outboxFile: input.outboxFile,
    invariants: { unexplainedDuplicates: total.unexplainedDuplicates, lost: total.lost, ok: total.unexplainedDuplicates === 0 && total.lost === 0 },
    fingerprint,
  };
}

function policyOf(messageClass: { onAmbiguous: string; lookupFallback: string } | undefined): string {
  if (!messageClass) return '?';
  return messageClass.onAmbiguous === 'lookup' ? `lookup, else ${messageClass.lookupFallback}` : messageClass.onAmbiguous;
}

function rank(name: string): number {
  const i = CLASS_ORDER.indexOf(name);
  return i < 0 ? CLASS_ORDER.length : i;
}

/** Sum of a metric over every channel of one class. */
function metric(ports: SenderPorts, name: MetricName, messageClass: string): number {
  let sum = 0;
  for (const [id, value] of ports.metrics.byDimensions) {
    const [metricName, , cls] = id.split('|');
    if (metricName === name && cls === messageClass) sum += value;
  }
  return sum;
}

function sumClasses(classes: readonly ClassReport[], latencies: number[]): ClassReport {
  const sum = (f: (c: ClassReport) => number) => classes.reduce((n, c) => n + f(c), 0);
  const states = new Map<string, number>();
  for (const c of classes) for (const [s, n] of Object.entries(c.finalStates)) bump(states, s, n);
  return {
    messageClass: 'total',
    policy: '',
    messages: sum((c) => c.messages),
    providerCalls: sum((c) => c.providerCalls),
    duplicateCalls: sum((c) => c.duplicateCalls),
    resendAfterAmbiguity: sum((c) => c.resendAfterAmbiguity),
    unexplainedDuplicates: sum((c) => c.unexplainedDuplicates),
    lost: sum((c) => c.lost),
    parkedInDeadLetterQueue: sum((c) => c.parkedInDeadLetterQueue),
    suppressedDuplicates: sum((c) => c.suppressedDuplicates),
    backoffs: sum((c) => c.backoffs),
    takeovers: sum((c) => c.takeovers),
    reclaims: sum((c) => c.reclaims),
    ambiguous: {
      outcomes: sum((c) => c.ambiguous.outcomes),
      resent: sum((c) => c.ambiguous.resent),
      gaveUp: sum((c) => c.ambiguous.gaveUp),
      sentByEvidence: sum((c) => c.ambiguous.sentByEvidence),
    },
    finalStates: Object.fromEntries([...states.entries()].sort()),
    smsIndexEntries: sum((c) => c.smsIndexEntries),
    latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) },
  };
}

/** The report as a human-readable text block. */
export function formatReport(report: SimulationReport): string {
  const cols = [...report.classes, report.total];
  const row = (label: string, f: (c: ClassReport) => string | number) => [label, ...cols.map(f)];
  const states = [...new Set(cols.flatMap((c) => Object.keys(c.finalStates)))].sort();
  const s = report.settings;
  const t = report.throughput;
  const d = report.dynamo;
  const injected = FAULT_KINDS.filter((k) => report.faultsInjected[k] > 0).map((k) => `${k}=${report.faultsInjected[k]}`);
  return [
    `sender: ${report.sender}   seed: ${s.seed}   concurrency: ${s.concurrency} invocations x batch ${s.batchSize} (sends per invocation ${s.sendsPerInvocation})`,
    `workload: ${report.workload.injected} queue messages (${report.workload.distinctEvents} events + ${report.workload.duplicates} duplicates) -> ${report.workload.messages} messages; injected at ${t.injectedPerSecond}/s`,
    `faults injected: ${injected.length > 0 ? injected.join(', ') : 'none'}`,
    '',
    textTable(
      ['', ...cols.map((c) => c.messageClass)],
      [
        row('ambiguity policy', (c) => c.policy),
        row('messages', (c) => c.messages),
        row('provider calls', (c) => c.providerCalls),
        row('duplicate calls (outbox)', (c) => c.duplicateCalls),
        row('  resend after ambiguity', (c) => c.resendAfterAmbiguity),
        row('  unexplained', (c) => c.unexplainedDuplicates),
        row('lost', (c) => c.lost),
        row('parked in DLQ', (c) => c.parkedInDeadLetterQueue),
        row('suppressed duplicates', (c) => c.suppressedDuplicates),
        row('backed off (claim held)', (c) => c.backoffs),
        row('takeovers', (c) => c.takeovers),
        row('reclaims', (c) => c.reclaims),
        row('unknown provider answers', (c) => c.ambiguous.outcomes),
        row('possible sends resent *', (c) => c.ambiguous.resent),
        row('possible sends UNKNOWN *', (c) => c.ambiguous.gaveUp),
        row('possible sends SENT by evidence *', (c) => c.ambiguous.sentByEvidence),
        ...states.map((st) => row(`final ${st}`, (c) => c.finalStates[st] ?? 0)),
        row('latency p50 ms', (c) => c.latencyMs.p50),
        row('latency p99 ms', (c) => c.latencyMs.p99),
      ],
    ),
    '',
    '* how the sender settled attempts that may have sent: after an unknown provider answer, or after a claim',
    '  whose owner died before recording an outcome; so these rows need not add up to the unknown answers',
    '',
    `throughput: ${t.eventsPerSecond} events/s, ${t.messagesPerSecond} messages/s (per busy second; wall ${round(t.wallMs / 1000, 1)} s, busy ${round(t.busyMs / 1000, 1)} s)`,
    `invocations: ${t.invocations} (crashed ${t.crashedInvocations}, timed out ${t.timedOutInvocations}, cold starts ${t.coldStarts}); invocation p50/p99 ${report.latencyMs.invocationP50}/${report.latencyMs.invocationP99} ms`,
    `queue: ${report.queue.redeliveries} redeliveries, ${report.queue.deadLettered} moved to the DLQ after ${s.maxReceiveCount} receives, ${report.queue.invalidEventsDeadLettered} invalid events dead-lettered by the sender`,
    report.reclaimer
      ? `reclaimer: ${report.reclaimer.runs} runs (${report.reclaimer.failedRuns} failed or killed) found ${report.reclaimer.found} stale rows: resent ${report.reclaimer.resent}, sent by evidence ${report.reclaimer.sentByEvidence}, gave up ${report.reclaimer.gaveUp}, failed ${report.reclaimer.failed}, left pending ${report.reclaimer.leftPending}`
      : 'reclaimer: none (this sender has no reclaimer)',
    `DynamoDB: ${d.requests} requests (${d.writes} writes, ${d.reads} reads) = ${d.requestsPerMessage} per message; ` +
      `consumed capacity ${round(d.capacityUnits, 1)} units = ${d.capacityUnitsPerMessage} per message (dynalite: table only, no GSI units)`,
    `invariants: unexplained duplicates ${report.invariants.unexplainedDuplicates}, lost ${report.invariants.lost} -> ${report.invariants.ok ? 'OK' : 'VIOLATED'}`,
    `outbox: ${report.outboxFile}`,
  ].join('\n');
}
