import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { InMemoryDeadLetters } from '../functions/core/dead-letter-sink';
import { keyPrefix } from '../functions/core/idempotency-key';
import type { LogPort } from '../functions/core/log-port';
import { InMemoryMetrics } from '../functions/core/metrics-recorder';
import { METRIC } from '../functions/core/metric-names';
import { FaultPlan, NO_FAULTS } from './fault-plan';
import { IndexedOutbox } from './indexed-outbox';
import { LambdaEventSource } from './lambda-event-source';
import { startLocalDynamo } from './local-dynamo';
import { LocalQueue } from './local-queue';
import { PrintingProvider } from './printing-provider';
import { ReclaimerTimer } from './reclaimer-timer';
import { SCALED_TIMING, type SenderPorts } from './senders/sender-under-test';
import { scanLedger, thisSender } from './senders/this-sender';
import { bump } from './stats';
import { textTable } from './text-table';

/** What `npm start` runs. */
export interface LocalRunOptions {
  /** Raw queue message bodies, in order (one JSON event per line). */
  readonly lines: readonly string[];
  /** Persist the ledger in this folder (LevelDB). @default in memory */
  readonly dataDir?: string;
  /** JSON-lines file every provider call is appended to. */
  readonly outboxFile: string;
  /** Ledger table name. @default 'notifier-ledger-local' */
  readonly tableName?: string;
  /** Events injected per second. @default 20 */
  readonly rate?: number;
  /** Concurrent invocations. @default 4 */
  readonly concurrency?: number;
  /** Records per invocation. @default 10 */
  readonly batchSize?: number;
  /** Print every structured log line as JSON. @default false (only notable ones, compactly) */
  readonly verbose?: boolean;
  /** @default process.stdout */
  readonly out?: (line: string) => void;
  /** Progress and log lines. @default process.stderr */
  readonly err?: (line: string) => void;
}

/** The end-of-run summary. */
export interface LocalRunSummary {
  readonly events: number;
  readonly queueMessages: number;
  readonly messages: number;
  readonly sent: number;
  readonly suppressedDuplicates: number;
  readonly retried: number;
  readonly failed: Readonly<Record<string, number>>;
  readonly unknown: number;
  readonly pending: number;
  readonly deadLettered: Readonly<Record<string, number>>;
}

/**
 * Runs the real sender (and the real reclaimer on a timer) behind the local queue, on dynalite,
 * sending to the outbox, printing each send readably. No fault injection: this is the product
 * working; `notifier simulate` is the abuse.
 */
export async function runLocal(options: LocalRunOptions): Promise<LocalRunSummary> {
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  mkdirSync(dirname(options.outboxFile), { recursive: true });
  const dynamo = await startLocalDynamo(options.dataDir ? { dataDir: options.dataDir } : {});
  try {
    const tableName = options.tableName ?? 'notifier-ledger-local';
    const metrics = new InMemoryMetrics();
    const ports: SenderPorts = {
      plan: new FaultPlan(0, NO_FAULTS),
      outbox: new PrintingProvider(new IndexedOutbox(options.outboxFile), out),
      client: dynamo.client(),
      adminClient: dynamo.client(),
      metrics,
      deadLetters: new InMemoryDeadLetters(),
      log: options.verbose ? jsonLog(err) : compactLog(err),
      timing: SCALED_TIMING,
      sendsPerInvocation: 4,
      runId: randomUUID().slice(0, 8),
    };
    const sender = thisSender(ports, tableName);
    await sender.setup();
    out(`ledger table ${tableName} on ${dynamo.endpoint} (${options.dataDir ? `persisted in ${options.dataDir}` : 'in memory'}); outbox ${options.outboxFile}`);
    out(`${'outcome'.padEnd(9)} ${'chan'.padEnd(5)} ${'recipient'.padEnd(28)} ${'template'.padEnd(14)} ${'class'.padEnd(19)} key`);

    const queue = new LocalQueue<undefined>({ visibilityTimeoutMs: SCALED_TIMING.visibilityTimeoutMs, maxReceiveCount: 5 });
    const source = new LambdaEventSource(queue, (env) => sender.createHandler(env), {
      concurrency: options.concurrency ?? 4,
      batchSize: options.batchSize ?? 10,
      functionTimeoutMs: SCALED_TIMING.functionTimeoutMs,
    });
    const reclaimer = new ReclaimerTimer(sender, SCALED_TIMING, SCALED_TIMING.claimTimeoutMs);
    reclaimer.start();

    let injected = 0;
    let producerDone = false;
    const started = Date.now();
    const progress = setInterval(() => {
      err(`progress: ${injected}/${options.lines.length} injected, ${queue.size} in queue, ${metrics.get(METRIC.Sent)} sent, ${Math.round((Date.now() - started) / 1000)} s`);
    }, 1000);
    const produce = async () => {
      const interval = 1000 / (options.rate ?? 20);
      for (const line of options.lines) {
        queue.send(line, undefined);
        injected += 1;
        await new Promise((resolve) => setTimeout(resolve, interval));
      }
      producerDone = true;
    };
    await Promise.all([produce(), source.run(() => producerDone)]);
    clearInterval(progress);
    await reclaimer.stop();

    const rows = await scanLedger(ports, tableName);
    const failed = new Map<string, number>();
    let unknown = 0;
    let pending = 0;
    for (const row of rows.values()) {
      if (row.state === 'FAILED') bump(failed, (row.failureReason ?? 'unknown').split(':')[0] ?? 'unknown');
      if (row.state === 'UNKNOWN') unknown += 1;
      if (row.state === 'PENDING') pending += 1;
    }
    const deadLettered = new Map<string, number>();
    for (const letter of ports.deadLetters.letters) bump(deadLettered, `invalid event: ${letter.reason}`);
    for (const _ of queue.deadLetters) bump(deadLettered, 'maxReceiveCount exceeded');
    const eventIds = new Set(options.lines.map(eventIdOf).filter((id): id is string => id !== undefined));
    return {
      events: eventIds.size,
      queueMessages: options.lines.length,
      messages: rows.size,
      sent: metrics.get(METRIC.Sent),
      suppressedDuplicates: metrics.get(METRIC.DuplicateSuppressed),
      retried: queue.redeliveries,
      failed: Object.fromEntries(failed),
      unknown,
      pending,
      deadLettered: Object.fromEntries(deadLettered),
    };
  } finally {
    await dynamo.stop();
  }
}

/** The summary as a table. */
export function formatLocalSummary(s: LocalRunSummary): string {
  const failedTotal = Object.values(s.failed).reduce((a, b) => a + b, 0);
  const dlqTotal = Object.values(s.deadLettered).reduce((a, b) => a + b, 0);
  return textTable(
    ['summary', 'count'],
    [
      ['events (distinct eventIds)', s.events],
      ['queue messages (with redeliveries)', s.queueMessages],
      ['messages (recipient x channel)', s.messages],
      ['sent', s.sent],
      ['suppressed duplicates', s.suppressedDuplicates],
      ['retried (queue redeliveries)', s.retried],
      ['failed', failedTotal],
      ...Object.entries(s.failed).map(([reason, n]) => [`  ${reason}`, n] as [string, number]),
      ['unknown outcome (class gave up)', s.unknown],
      ['still pending', s.pending],
      ['DLQ', dlqTotal],
      ...Object.entries(s.deadLettered).map(([reason, n]) => [`  ${reason}`, n] as [string, number]),
    ],
  );
}

function eventIdOf(line: string): string | undefined {
  try {
    const id = (JSON.parse(line) as { eventId?: unknown }).eventId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Notable sender logs, one short line each (the sender never logs addresses or content). */
function compactLog(err: (line: string) => void): LogPort {
  const line = (level: string, message: string, a: Record<string, unknown> = {}) => {
    const key = typeof a.key === 'string' ? a.key : undefined;
    const parts = [a.eventId, a.channel, key ? `key ${key.length > 12 ? keyPrefix(key) : key}` : undefined, a.reason, a.state]
      .filter((p) => p !== undefined)
      .map(String);
    err(`${level.padEnd(5)} ${message}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`);
  };
  return {
    info: (message, a) => {
      if (/Duplicate suppressed|Took over|Reclaimer run finished/.test(message) && !(message.startsWith('Reclaimer') && a?.found === 0)) line('info', message, a);
    },
    warn: (message, a) => line('warn', message, a),
    error: (message, a) => line('error', message, a),
  };
}

function jsonLog(err: (line: string) => void): LogPort {
  const emit = (level: string) => (message: string, attributes?: Record<string, unknown>) =>
    err(JSON.stringify({ level, message, ...attributes }));
  return { info: emit('INFO'), warn: emit('WARN'), error: emit('ERROR') };
}
