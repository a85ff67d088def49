import { AWS_DEFAULTS } from '../../lib/capacity-model/aws-quotas';
import type { Channel } from '../../functions/core/event/idempotency-key';
import {
  laneThroughput,
  ledgerRequestsOnPath,
  MEASURED_CPU_MS_PER_MESSAGE,
  TYPICAL_LATENCIES,
  type LaneThroughput,
  type MessageLatencies,
} from '../../lib/capacity-model/lane-throughput';
import {
  deliveryStatusUnits,
  discoverableClaimsPerSecond,
  eventPartitionWriteUnitsPerSecond,
  LEDGER_PATHS,
  ledgerUnits,
  limitCounters,
  PARTITION_WRITE_UNITS_PER_SECOND,
  pendingShardsNeeded,
} from '../../lib/capacity-model/ledger-capacity';
import { expectedMakespanMs } from '../../lib/capacity-model/lane-throughput';
import { BUILT_IN_MESSAGE_CLASSES, type MessageClass } from '../../functions/core/policy/message-class';
import { reclaimerCapacity } from '../../lib/capacity-model/reclaimer-capacity';
import { resolveSettings } from '../../lib/notifier-settings';
import type { IdempotentNotifierProps } from '../../lib/notifier-props';
import { scaleViolations } from '../../lib/scale-check';
import { LIST_PRICES } from './list-prices';
import type { LogBytesPerInvocation } from './log-bytes-result';

/**
 * The tables of docs/scale.md, made by the capacity model's own code (functions/core) and the synth check
 * (lib/scale-check.ts): `npx tsx bench/scale/print-scale-tables.ts --write` puts them into the page, and
 * test/docs/scale-tables.test.ts fails when the page and the code disagree.
 */

const cls = (name: string): MessageClass => {
  const found = BUILT_IN_MESSAGE_CLASSES.find((c) => c.name === name);
  if (!found) throw new Error(`no built-in class ${name}`);
  return found;
};

/** The class and channel pairs the tables price, each with its template's name for the reader. */
const KINDS: readonly { readonly label: string; readonly messageClass: MessageClass; readonly channel: Channel }[] = [
  { label: 'otp SMS', messageClass: cls('otp'), channel: 'sms' },
  { label: 'otp e-mail', messageClass: cls('otp'), channel: 'email' },
  { label: 'transactional e-mail', messageClass: cls('transactional'), channel: 'email' },
  { label: 'transactional SMS', messageClass: cls('transactional'), channel: 'sms' },
  { label: 'transactional push', messageClass: cls('transactional'), channel: 'push' },
  { label: 'marketing e-mail', messageClass: cls('marketing'), channel: 'email' },
  { label: 'marketing push', messageClass: cls('marketing'), channel: 'push' },
  { label: 'a class without limits, e-mail', messageClass: { ...cls('transactional'), limits: [] }, channel: 'email' },
];

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'unbounded';
const usd = (n: number): string => (n >= 1000 ? `$${Math.round(n).toLocaleString('en-US')}` : `$${n < 1 ? n.toFixed(3) : n.toFixed(2)}`);
const table = (head: readonly string[], align: readonly ('l' | 'r')[], rows: readonly (readonly string[])[]): string =>
  [`| ${head.join(' | ')} |`, `| ${align.map((a) => (a === 'r' ? '---:' : '---')).join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** One instance of a lane sending transactional e-mail (one limit counter) at the typical latencies. */
export function instance(settings: { readonly batchSize: number; readonly maxConcurrentSends: number; readonly memoryMb: number }, latencies: MessageLatencies = TYPICAL_LATENCIES): LaneThroughput {
  return laneThroughput({
    concurrency: 1,
    batchSize: settings.batchSize,
    messagesPerRecord: 1,
    maxConcurrentSends: settings.maxConcurrentSends,
    ledgerRequestsPerMessage: ledgerRequestsOnPath(1),
    latencies,
    cpuMsPerMessage: MEASURED_CPU_MS_PER_MESSAGE,
    memoryMb: settings.memoryMb,
  });
}

const SLOW_PROVIDER: MessageLatencies = { ...TYPICAL_LATENCIES, provider: { label: 'provider call', medianMs: 150, p99Ms: 1000 } };

/** Messages per second of one instance, by batch, sends in flight, memory and provider latency. */
function instanceTable(): string {
  const rows: [string, Parameters<typeof instance>[0], MessageLatencies][] = [
    ['defaults', { batchSize: 10, maxConcurrentSends: 16, memoryMb: 512 }, TYPICAL_LATENCIES],
    ['defaults, slow provider (median 150 ms, p99 1 s)', { batchSize: 10, maxConcurrentSends: 16, memoryMb: 512 }, SLOW_PROVIDER],
    ['defaults at 1 vCPU', { batchSize: 10, maxConcurrentSends: 16, memoryMb: 1769 }, TYPICAL_LATENCIES],
    ['4 in flight', { batchSize: 10, maxConcurrentSends: 4, memoryMb: 512 }, TYPICAL_LATENCIES],
    ['batch 50, 50 in flight', { batchSize: 50, maxConcurrentSends: 50, memoryMb: 1600 }, TYPICAL_LATENCIES],
    ['batch 50, 50 in flight, 1 vCPU', { batchSize: 50, maxConcurrentSends: 50, memoryMb: 1769 }, TYPICAL_LATENCIES],
    ['batch 100, 50 in flight, 1 vCPU', { batchSize: 100, maxConcurrentSends: 50, memoryMb: 1769 }, TYPICAL_LATENCIES],
    ['batch 200, 50 in flight, 1 vCPU', { batchSize: 200, maxConcurrentSends: 50, memoryMb: 1769 }, TYPICAL_LATENCIES],
  ];
  return table(
    ['settings', 'batchSize', 'maxConcurrentSends', 'memorySize MB', 'invocation ms', 'messages/s per instance', 'bound by', 'instances for 10,000/s', 'for 100,000/s'],
    ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r'],
    rows.map(([label, s, latencies]) => {
      const r = instance(s, latencies);
      const per = r.perInstance.messagesPerSecond;
      return [label, `${s.batchSize}`, `${s.maxConcurrentSends}`, `${s.memoryMb}`, fmt(r.invocationMs), fmt(per, 1), r.binding, fmt(Math.ceil(10_000 / per)), fmt(Math.ceil(100_000 / per))];
    }),
  );
}

/**
 * Props that reach `rate` e-mails a second: the defaults for the concurrencies and shards, raised to the values the
 * synth check itself names until it accepts them.
 */
function reaching(rate: number, perInstance: { batchSize: number; maxConcurrentSends: number; memorySize: number }): IdempotentNotifierProps {
  let props: IdempotentNotifierProps = { emailFrom: 'notifications@mail.example-shop.dev', sendRates: { emailPerSecond: rate }, ...perInstance };
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const violations = scaleViolations(props, resolveSettings(props, { defaultMetricsNamespace: 'Notifier' }));
    if (violations.length === 0) return props;
    const named = (setting: string) => {
      const found = violations.map((v) => new RegExp(`raise ${setting.replace('.', '\\.')} to at least (\\d+)`).exec(v)?.[1]).find(Boolean);
      return found === undefined ? undefined : Number(found);
    };
    const urgent = named('lanes.urgentMaxConcurrency');
    props = {
      ...props,
      ...(named('maxConcurrency') ? { maxConcurrency: named('maxConcurrency') } : {}),
      ...(urgent ? { lanes: { urgentMaxConcurrency: urgent } } : {}),
      ...(named('pendingIndexShards') ? { pendingIndexShards: named('pendingIndexShards') } : {}),
    };
  }
  throw new Error(`no settings the synth check accepts for ${rate}/s with ${JSON.stringify(perInstance)}`);
}

/** Settings the synth check accepts for 10,000 and 100,000 e-mails a second. */
function reachTable(): string {
  const configs: [string, IdempotentNotifierProps][] = [
    ['10,000/s, default instances', reaching(10_000, { batchSize: 10, maxConcurrentSends: 16, memorySize: 512 })],
    ['10,000/s, larger instances', reaching(10_000, { batchSize: 50, maxConcurrentSends: 50, memorySize: 1769 })],
    ['100,000/s (on paper)', reaching(100_000, { batchSize: 100, maxConcurrentSends: 50, memorySize: 1769 })],
  ];
  return table(
    ['target', 'batchSize (window)', 'maxConcurrentSends', 'memorySize', 'maxConcurrency (bulk)', 'lanes.urgentMaxConcurrency', 'pendingIndexShards', 'Lambda concurrency in all'],
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
    configs.map(([label, p]) => {
      const urgent = p.lanes && p.lanes.urgentMaxConcurrency ? p.lanes.urgentMaxConcurrency : 0;
      const window = (p.batchSize ?? 10) > 10 ? ' (maxBatchingWindow >= 1 s)' : '';
      // Both lanes, the reclaimer and the status function's 5 reserved.
      const total = (p.maxConcurrency ?? 0) + urgent + 1 + 5;
      return [label, `${p.batchSize}${window}`, `${p.maxConcurrentSends}`, `${p.memorySize}`, fmt(p.maxConcurrency ?? 0), fmt(urgent), fmt(p.pendingIndexShards ?? 16), fmt(total)];
    }),
  );
}

/** Write and read units per message by class, channel and path (the sender's), and the status Lambda's. */
function unitsTable(): string {
  const paths = LEDGER_PATHS;
  return table(
    ['message', 'limit counters', ...paths, 'status events after delivery'],
    ['l', 'r', ...paths.map(() => 'r' as const), 'r'],
    KINDS.map((k) => {
      const units = paths.map((path) => {
        const u = ledgerUnits(path, k.messageClass, k.channel);
        return u.readUnits > 0 ? `${u.writeUnits} WU + ${u.readUnits} RU` : `${u.writeUnits} WU`;
      });
      const status = deliveryStatusUnits(k.channel, true);
      const statusText = status.writeUnits === 0 ? '0' : `${status.writeUnits} WU${status.readUnits ? ` + ${status.readUnits} RU` : ''}${k.channel === 'sms' ? ' (with SMS logs on)' : ''}`;
      return [k.label, `${limitCounters(k.messageClass, k.channel)}`, ...units, statusText];
    }),
  );
}

/** Table-level write units a second at 10,000 messages a second of one kind, against the quota and a new table's warm throughput. */
function tableHeatTable(): string {
  const rate = 10_000;
  return table(
    ['10,000 messages/s of', 'sender WU/s', 'status WU/s', 'table WU/s', `share of the ${fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond)} WU/s table quota`, 'most messages/s under the quota'],
    ['l', 'r', 'r', 'r', 'r', 'r'],
    KINDS.filter((k) => k.label !== 'transactional push' && !k.label.startsWith('a class')).map((k) => {
      const sender = ledgerUnits('delivered', k.messageClass, k.channel).writeUnits;
      const status = deliveryStatusUnits(k.channel, k.channel === 'sms').writeUnits;
      const total = (sender + status) * rate;
      return [k.label, fmt(sender * rate), fmt(status * rate), fmt(total), `${fmt((100 * total) / AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond)}%`, fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond / (sender + status))];
    }),
  );
}

/** The mean time of one delivered transactional e-mail's path at the typical latencies. */
function messageMs(): number {
  return expectedMakespanMs(TYPICAL_LATENCIES, ledgerRequestsOnPath(1), 1, 1);
}

/** One 100-recipient event's partition, and one number block's counter under attack. */
function partitionHeatTable(): string {
  const ms = messageMs();
  const rows = [16, 32, 50].map((s) => {
    const wu = eventPartitionWriteUnitsPerSecond({ maxConcurrentSends: s, messages: 100, messageMs: ms });
    return [`one event, 100 recipients, maxConcurrentSends ${s}`, 'the event part of the key (pk)', fmt(wu), `${fmt((100 * wu) / PARTITION_WRITE_UNITS_PER_SECOND)}%`, `${fmt((100 * 2 * 1000) / wu, 0)} ms of claims and outcomes`];
  });
  for (const attack of [100, 1_000, 10_000]) {
    rows.push([
      `${fmt(attack)} otp SMS/s to one number block`,
      'its number-block counter item (1 item: no split helps)',
      fmt(attack),
      `${fmt((100 * attack) / PARTITION_WRITE_UNITS_PER_SECOND)}%`,
      attack > PARTITION_WRITE_UNITS_PER_SECOND ? 'throttled: LimitStoreError, claim released, record backs off; never sent unchecked' : '20 sent per hour, the rest SUPPRESSED',
    ]);
  }
  return table(['load', 'partition', 'WU/s on it', 'of its 1,000 WU/s', 'what happens'], ['l', 'l', 'r', 'r', 'l'], rows);
}

/** The reclaimer's rows per run and minute, at the defaults and with the sends in flight the scale settings use. */
function reclaimerTable(): string {
  const rows: [string, Parameters<typeof reclaimerCapacity>[0]][] = [
    ['defaults (budget 18 s, 500 rows, 16 at once, every minute)', { timeBudgetMs: 18_000, maxRowsPerRun: 500, concurrency: 16, latencies: TYPICAL_LATENCIES, limitCounters: 3, scheduleSeconds: 60 }],
    ['RECLAIMER_MAX_ROWS_PER_RUN 10000, 16 at once', { timeBudgetMs: 18_000, maxRowsPerRun: 10_000, concurrency: 16, latencies: TYPICAL_LATENCIES, limitCounters: 3, scheduleSeconds: 60 }],
    ['RECLAIMER_MAX_ROWS_PER_RUN 10000, 50 at once', { timeBudgetMs: 18_000, maxRowsPerRun: 10_000, concurrency: 50, latencies: TYPICAL_LATENCIES, limitCounters: 3, scheduleSeconds: 60 }],
  ];
  return table(
    ['reclaimer', 'ms per row', 'rows the budget allows', 'rows per run', 'bound by', 'rows per minute', 'hours for 1 million stale indexed rows'],
    ['l', 'r', 'r', 'r', 'l', 'r', 'r'],
    rows.map(([label, input]) => {
      const c = reclaimerCapacity(input);
      return [label, fmt(c.rowMs), fmt(c.budgetRows), fmt(c.rowsPerRun), c.binding, fmt(c.rowsPerMinute), fmt(1_000_000 / c.rowsPerMinute / 60, 1)];
    }),
  );
}

/** Where each limit binds, from the defaults, for e-mail (the most limits a team meets first). */
function bindingTable(): string {
  const defaults = instance({ batchSize: 10, maxConcurrentSends: 16, memoryMb: 512 }).perInstance.messagesPerSecond;
  const emailWu = ledgerUnits('delivered', cls('transactional'), 'email').writeUnits + deliveryStatusUnits('email', false).writeUnits;
  const smsWu = ledgerUnits('delivered', cls('otp'), 'sms').writeUnits;
  const rows: [number, string, string, string, string][] = [
    [1, 'SES sending rate (account quota)', 'sandbox 1/s; production "varies based on your use case"', 'SES quota increase (Service Quotas / support)', 'SES "Service quotas in Amazon SES"'],
    [(10 * defaults) / 0.8, 'bulk lane instances: `maxConcurrency` 10', `${fmt(10 * defaults)}/s = 80% of ${fmt((10 * defaults) / 0.8)}/s`, '`maxConcurrency` (synth names the value)', 'this model; bench:scale'],
    [(5 * defaults) / 0.2, 'urgent lane instances: `lanes.urgentMaxConcurrency` 5', `${fmt(5 * defaults)}/s = 20% of ${fmt((5 * defaults) / 0.2)}/s`, '`lanes.urgentMaxConcurrency`', 'this model; bench:scale'],
    [AWS_DEFAULTS.dynamoNewTableWarmWriteUnitsPerSecond / emailWu, 'a new on-demand table\'s warm throughput', `${fmt(AWS_DEFAULTS.dynamoNewTableWarmWriteUnitsPerSecond)} WU/s = ${fmt(AWS_DEFAULTS.dynamoNewTableWarmWriteUnitsPerSecond / emailWu)} e-mails/s at ${emailWu} WU`, 'pre-warm the table (warm throughput) before launch; on-demand scales past it on its own, throttling meanwhile', 'DynamoDB "warm throughput in different scenarios"'],
    [AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond / smsWu, 'DynamoDB table write quota (otp SMS, 6 WU)', `${fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond)} WU/s = ${fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond / smsWu)} otp SMS/s`, 'DynamoDB table-level quota increase', 'DynamoDB "maximum throughput for on-demand tables"'],
    [AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond / emailWu, 'DynamoDB table write quota (transactional e-mail with its 2 status events, 5 WU)', `${fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond)} WU/s = ${fmt(AWS_DEFAULTS.dynamoTableWriteUnitsPerSecond / emailWu)} e-mails/s`, 'DynamoDB table-level quota increase', 'DynamoDB "maximum throughput for on-demand tables"'],
    [discoverableClaimsPerSecond(16), 'pending-index shards: 16', `${fmt(discoverableClaimsPerSecond(16))} discoverable claims/s`, '`pendingIndexShards` (synth refuses fewer than the stated rate needs)', 'DynamoDB partition limit; this model'],
    [AWS_DEFAULTS.lambdaAccountConcurrency * defaults, 'Lambda account concurrency', `${fmt(AWS_DEFAULTS.lambdaAccountConcurrency)} environments = ${fmt(AWS_DEFAULTS.lambdaAccountConcurrency * defaults)}/s at the default instance`, 'Lambda quota increase, or larger instances (batch, in flight, memory)', 'Lambda quotas; serverlessland "Scaling and concurrency"'],
    [(AWS_DEFAULTS.sqsEventSourceMaxConcurrency * defaults) / 0.8, 'SQS event source: 1,000 instances per mapping (the bulk lane)', `${fmt(AWS_DEFAULTS.sqsEventSourceMaxConcurrency * defaults)}/s per lane at the default instance`, 'larger instances: batchSize (with a batching window), maxConcurrentSends, memorySize', 'Lambda "Configuring scaling behavior for SQS event source mappings"'],
  ];
  rows.sort((a, b) => a[0] - b[0]);
  return table(
    ['binds at (messages/s)', 'limit', 'default', 'raise with', 'source'],
    ['r', 'l', 'l', 'l', 'l'],
    rows.map(([at, ...rest]) => [fmt(at), ...rest]),
  );
}

/**
 * The outcome publisher's duration for a full batch (100 stream records, 10 PutEvents calls one after another):
 * its own time measured by `npx tsx bench/scale/outcome-publisher-cpu.ts` (10 to 19 ms on this 2-core machine
 * under load; 15 taken), and each PutEvents round trip at the model's typical provider median (60 ms: AWS documents
 * no PutEvents latency, so this is our assumption, not a measurement). At the stack's 512 MB.
 */
export const OUTCOME_PUBLISHER_MS_PER_BATCH = 15 + 10 * 60;
const OUTCOME_RECORDS_PER_BATCH = 100;
const OUTCOME_PUBLISHER_MEMORY_GB = 512 / 1024;

/** Cost per million messages by kind at the default instance, 10,000/s (the rate changes only the fixed per-month lines). */
function costTable(logBytes: LogBytesPerInvocation): string {
  const p = LIST_PRICES;
  const r = instance({ batchSize: 10, maxConcurrentSends: 16, memoryMb: 512 });
  const gbSecondsPerMillion = ((r.invocationMs / 1000) * (512 / 1024) * 1_000_000) / r.messagesPerInvocation;
  const lambda = gbSecondsPerMillion * p.lambdaGbSecondArm64 + (p.lambdaRequestPerMillion * 1) / r.messagesPerInvocation;
  // The event source's ReceiveMessage and DeleteMessageBatch, one each per batch.
  const sqs = (2 / r.messagesPerInvocation) * p.sqsRequestPerMillion;
  const logsGb = (1_000_000 / r.messagesPerInvocation) * logBytes.sender / 1024 ** 3;
  const logs = logsGb * (p.logsIngestionPerGb + p.logsDataProtectionPerGb);
  const perGb = p.logsIngestionPerGb + p.logsDataProtectionPerGb;
  const platformGb = (invocationsPerMillion: number) => (invocationsPerMillion * logBytes.platform) / 1024 ** 3;
  const rows = KINDS.filter((k) => !k.label.startsWith('a class') && k.label !== 'transactional SMS').map((k) => {
    const units = ledgerUnits('delivered', k.messageClass, k.channel);
    const status = deliveryStatusUnits(k.channel, false);
    const dynamo = (units.writeUnits + status.writeUnits) * p.dynamoWriteUnitPerMillion + (units.readUnits + status.readUnits) * p.dynamoReadUnitPerMillion;
    const statusInvocations = status.writeUnits; // one status invocation per SES event
    const statusLambda = statusInvocations * p.lambdaRequestPerMillion;
    const provider = k.channel === 'email' ? p.sesEmailPerMillion : k.channel === 'push' ? p.snsMobilePushPerMillion : Number.NaN;
    // The sender's invocations, and the status function's (one per SES event).
    const platform = platformGb(1_000_000 / r.messagesPerInvocation + statusInvocations * 1_000_000) * perGb;
    // The outcome feed: one event per producer-visible state change (SENT, then DELIVERED where the provider reports
    // it: SES, SNS's SMS logs; a push has no delivery evidence), and the publisher's requests and duration at 100
    // records (one per event) a batch; the stream's reads by the Lambda trigger are free.
    const outcomeEvents = k.channel === 'push' ? 1 : 2;
    const publisherInvocations = outcomeEvents / OUTCOME_RECORDS_PER_BATCH;
    const publisherGbSeconds = publisherInvocations * 1_000_000 * (OUTCOME_PUBLISHER_MS_PER_BATCH / 1000) * OUTCOME_PUBLISHER_MEMORY_GB;
    const outcomes = outcomeEvents * p.eventBridgeCustomEventPerMillion + publisherInvocations * p.lambdaRequestPerMillion + publisherGbSeconds * p.lambdaGbSecondArm64;
    const aws = lambda + dynamo + sqs + p.snsPublishPerMillion + logs + platform + statusLambda + outcomes;
    return [
      k.label,
      usd(lambda),
      usd(dynamo),
      usd(sqs + p.snsPublishPerMillion),
      usd(logs),
      usd(platform),
      statusInvocations ? usd(statusLambda) : '$0',
      usd(outcomes),
      usd(aws),
      Number.isNaN(provider) ? `${usd(p.smsJapanPerPartPerMillion)} to Japan (one part); by country and parts` : usd(provider),
    ];
  });
  return table(
    ['per million messages', 'Lambda (sender)', 'DynamoDB (with status events)', 'SQS + SNS topic', 'CloudWatch Logs, sender (measured)', 'CloudWatch Logs, platform lines (documented records)', 'status Lambda requests', 'outcome events (bus + publisher)', 'AWS before the provider', 'provider'],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    rows,
  );
}

/** Every table of docs/scale.md by its marker name. */
export function scaleTables(logBytes: LogBytesPerInvocation): Readonly<Record<string, string>> {
  return {
    instance: instanceTable(),
    reach: reachTable(),
    binding: bindingTable(),
    units: unitsTable(),
    'table-heat': tableHeatTable(),
    'partition-heat': partitionHeatTable(),
    reclaimer: reclaimerTable(),
    cost: costTable(logBytes),
  };
}
