import { AWS_DEFAULTS } from './capacity-model/aws-quotas';
import type { Channel } from '../functions/core/event/idempotency-key';
import {
  laneThroughput,
  ledgerRequestsOnPath,
  MEASURED_CPU_MS_PER_MESSAGE,
  TYPICAL_LATENCIES,
  type LaneThroughput,
} from './capacity-model/lane-throughput';
import { discoverableClaimsPerSecond, limitCounters, pendingShardsNeeded } from './capacity-model/ledger-capacity';
import { MAX_PENDING_SHARDS, PENDING_SHARD_COUNT } from '../functions/core/ledger/ledger-table';
import { buildMessageClassRegistry, type MessageClass } from '../functions/core/policy/message-class';
import type { IdempotentNotifierProps } from './notifier-props';
import type { ResolvedLane } from './notifier-lanes';
import type { NotifierSettings } from './notifier-settings';

/**
 * The settings that decide how far a stack scales, checked at synth against the rates it is given
 * (docs/scale.md): that each lane's instances can send their share of the stated `sendRates` (the capacity
 * model of lib/capacity-model/lane-throughput.ts), that the pending index has the shards those rates need, and
 * that no invocation runs more sends at once than the SDK has sockets for. Every refusal names the setting
 * to change and the value that would do. Without stated rates only the rate-free rules apply, so the
 * defaults stay right for a small account whose SES rate is read at cold start.
 */
export function scaleViolations(props: IdempotentNotifierProps, settings: NotifierSettings): string[] {
  return [...inFlightViolations(settings), ...shardViolations(props, settings), ...laneRateViolations(props, settings)];
}

/** The sum of the stated account-wide send rates, or undefined when none is stated. */
export function statedSendRate(props: Pick<IdempotentNotifierProps, 'sendRates'>): number | undefined {
  const rates = [props.sendRates?.emailPerSecond, props.sendRates?.smsPerSecond, props.sendRates?.pushPerSecond].filter(
    (rate): rate is number => rate !== undefined && Number.isFinite(rate) && rate > 0,
  );
  return rates.length === 0 ? undefined : rates.reduce((a, b) => a + b, 0);
}

function inFlightViolations(s: NotifierSettings): string[] {
  return s.maxConcurrentSends > AWS_DEFAULTS.sdkMaxSockets
    ? [
        `maxConcurrentSends (${s.maxConcurrentSends}) is above the ${AWS_DEFAULTS.sdkMaxSockets} sockets the AWS SDK opens per endpoint: ` +
          'the sends past them wait for a socket, and the ledger client\'s 500 ms connection timeout counts that wait, so a busy ' +
          `invocation looks like an unreachable ledger; keep it at most ${AWS_DEFAULTS.sdkMaxSockets} and raise maxConcurrency instead`,
      ]
    : [];
}

function shardViolations(props: IdempotentNotifierProps, s: NotifierSettings): string[] {
  const shards = s.pendingIndexShards;
  if (!(Number.isInteger(shards) && shards >= PENDING_SHARD_COUNT && shards <= MAX_PENDING_SHARDS)) {
    return [
      `pendingIndexShards (${shards}) must be a whole number from ${PENDING_SHARD_COUNT} to ${MAX_PENDING_SHARDS}: ` +
        `claims indexed in the first ${PENDING_SHARD_COUNT} shards must stay where the reclaimer looks`,
    ];
  }
  const rate = statedSendRate(props);
  if (rate === undefined || discoverableClaimsPerSecond(shards) >= rate) return [];
  return [
    `pendingIndexShards (${shards}) takes ${discoverableClaimsPerSecond(shards)} discoverable claims a second, below the stated sendRates ` +
      `(${rate}/s): when a backlog meets its last receive every claim enters the index, whose throttled shards would then throttle ` +
      `the claims themselves; raise pendingIndexShards to at least ${pendingShardsNeeded(rate)}`,
  ];
}

/**
 * What each lane must be able to send of the stated rate `rate`, and the fewest instances that do it at `perInstance`
 * each: the bulk lane its `bulkRateShare`; the urgent lane the rest, the part kept for it (it may use more in a burst,
 * and gives it back); one lane without lanes the whole rate less the reclaimer's share.
 */
function lanePart(lane: ResolvedLane, rate: number, bulkShare: number, perInstance: number): { readonly part: number; readonly what: string; readonly enough: number } {
  switch (lane.name) {
    case 'bulk':
      return { part: rate * bulkShare, what: `its bulkRateShare of ${rate}/s`, enough: Math.ceil((rate * bulkShare) / perInstance) };
    case 'urgent':
      return { part: rate * (1 - bulkShare), what: `the part of ${rate}/s kept for urgent sends`, enough: Math.ceil((rate * (1 - bulkShare)) / perInstance) };
    case 'single':
      return {
        part: (rate * lane.maxConcurrency) / lane.pace.sendRateShares,
        what: `${rate}/s less the reclaimer's share`,
        // maxConcurrency instances of maxConcurrency + 1 shares: C x perInstance >= rate x C / (C + 1).
        enough: Math.max(1, Math.ceil(rate / perInstance - 1)),
      };
  }
}

/** Each lane whose instances cannot deliver its part of the stated rates at the model's latencies. */
function laneRateViolations(props: IdempotentNotifierProps, s: NotifierSettings): string[] {
  const rate = statedSendRate(props);
  const classes = classesOf(props);
  if (rate === undefined || classes === undefined) return [];
  const bulkShare = s.lanes.lanes.find((lane) => lane.name === 'bulk')?.pace.accountShare ?? 0;
  const violations: string[] = [];
  for (const lane of s.lanes.lanes) {
    const model = instanceCapacity(s, laneClasses(lane, classes, s.lanes.bulkClasses), channelsOf(s));
    const perInstance = model.perInstance.messagesPerSecond;
    const { part, what, enough } = lanePart(lane, rate, bulkShare, perInstance);
    if (perInstance * lane.maxConcurrency >= part) continue;
    const setting = lane.name === 'urgent' ? 'lanes.urgentMaxConcurrency' : 'maxConcurrency';
    const where = lane.name === 'single' ? 'the lane' : `the ${lane.name} lane`;
    const fix =
      enough <= AWS_DEFAULTS.sqsEventSourceMaxConcurrency
        ? `raise ${setting} to at least ${enough}`
        : `no ${setting} up to ${AWS_DEFAULTS.sqsEventSourceMaxConcurrency} (an SQS event source's most) reaches it: raise batchSize, maxConcurrentSends or memorySize`;
    violations.push(
      `sendRates (${rate}/s in all) cannot be reached: ${where} must deliver ${round(part)}/s (${what}), and its ${setting} (${lane.maxConcurrency}) ` +
        `instances deliver about ${round(perInstance)}/s each (batchSize ${s.batchSize}, maxConcurrentSends ${s.maxConcurrentSends}, ` +
        `memorySize ${s.memorySize} MB, bound by ${model.binding}; docs/scale.md): ${fix}`,
    );
  }
  return violations;
}

/**
 * One instance's capacity at the model's typical latencies, with one message per record (the fewest per invocation)
 * and the most limit counters any of the lane's classes writes on any enabled channel.
 */
function instanceCapacity(s: NotifierSettings, classes: readonly MessageClass[], channels: readonly Channel[]): LaneThroughput {
  const counters = Math.max(0, ...classes.flatMap((c) => channels.map((channel) => limitCounters(c, channel))));
  return laneThroughput({
    concurrency: 1,
    batchSize: s.batchSize,
    messagesPerRecord: 1,
    maxConcurrentSends: s.maxConcurrentSends,
    ledgerRequestsPerMessage: ledgerRequestsOnPath(counters),
    latencies: TYPICAL_LATENCIES,
    cpuMsPerMessage: MEASURED_CPU_MS_PER_MESSAGE,
    memoryMb: s.memorySize,
    invocationGapMs: 0,
  });
}

/** The deployment's classes, or undefined when they do not build (the class validation reports that). */
function classesOf(props: IdempotentNotifierProps): readonly MessageClass[] | undefined {
  try {
    return [...buildMessageClassRegistry(props.messageClasses?.length ? JSON.stringify(props.messageClasses) : undefined).values()];
  } catch {
    return undefined;
  }
}

function laneClasses(lane: ResolvedLane, classes: readonly MessageClass[], bulkClasses: readonly string[]): readonly MessageClass[] {
  if (lane.name === 'bulk') return classes.filter((c) => bulkClasses.includes(c.name));
  if (lane.name === 'urgent') return classes.filter((c) => !bulkClasses.includes(c.name));
  return classes;
}

function channelsOf(s: NotifierSettings): Channel[] {
  return ['email', ...(s.smsEnabled ? (['sms'] as const) : []), ...(s.pushEnabled ? (['push'] as const) : [])];
}

function round(n: number): number {
  return n >= 100 ? Math.round(n) : Math.round(n * 10) / 10;
}
