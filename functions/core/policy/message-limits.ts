import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Channel } from '../event/idempotency-key';
import { jsonStrictObject } from '../json-objects';

/**
 * What a limit counts messages by:
 * - `address`: the destination (e-mail address, phone number, push endpoint);
 * - `recipient`: the producer's `recipientId`;
 * - `number-block`: SMS only, the number without its last 3 digits (SMS pumping walks a premium range).
 */
export const LIMIT_SCOPES = ['address', 'recipient', 'number-block'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

/** Longest window: a month (the window item lives that long). */
export const MAX_WINDOW_SECONDS = 31 * 86_400;
/** Windows of one scope share one item: its size, so its write units, grows with their number. */
export const MAX_WINDOWS_PER_SCOPE = 4;

const LimitSchema = jsonStrictObject({
  scope: v.picklist(LIMIT_SCOPES),
  /** At most this many messages... */
  max: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(1000)),
  /** ...per this many seconds (fixed windows aligned on the epoch). */
  windowSeconds: v.pipe(v.number(), v.safeInteger(), v.minValue(60), v.maxValue(MAX_WINDOW_SECONDS)),
  /** Count each channel apart (one event's e-mail and SMS in two counts). @default false */
  perChannel: v.optional(v.boolean(), false),
  /** Count each template apart. @default false */
  perTemplate: v.optional(v.boolean(), false),
});

export type MessageLimit = v.InferOutput<typeof LimitSchema>;
/** A limit as a deployment gives it (`perChannel`, `perTemplate` may be left out). */
export type MessageLimitDefinition = v.InferInput<typeof LimitSchema>;

/**
 * A class's limits. Limits of one scope and partitioning are one counter with several windows: each
 * window a divisor of the longest (so a short window never straddles two of the counter's items), no
 * window twice, at most {@link MAX_WINDOWS_PER_SCOPE}.
 */
export const LIMITS_SCHEMA = v.pipe(
  v.array(LimitSchema),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const group of groupLimits(dataset.value)) {
      const windows = group.limits.map((l) => l.windowSeconds);
      const longest = Math.max(...windows);
      const name = `${group.scope}${group.perChannel ? ' per channel' : ''}${group.perTemplate ? ' per template' : ''}`;
      if (new Set(windows).size !== windows.length) addIssue({ message: `${name}: the same window is given twice` });
      if (windows.length > MAX_WINDOWS_PER_SCOPE) addIssue({ message: `${name}: at most ${MAX_WINDOWS_PER_SCOPE} windows` });
      const uneven = windows.filter((w) => longest % w !== 0);
      if (uneven.length > 0) addIssue({ message: `${name}: every window must divide the longest (${longest} s); ${uneven.join(', ')} s do not` });
    }
  }),
);

/** The limits that share one counter. */
export interface LimitGroup {
  readonly scope: LimitScope;
  readonly perChannel: boolean;
  readonly perTemplate: boolean;
  readonly limits: readonly MessageLimit[];
}

export function groupLimits(limits: readonly MessageLimit[]): LimitGroup[] {
  const groups = new Map<string, LimitGroup & { limits: MessageLimit[] }>();
  for (const limit of limits) {
    const id = `${limit.scope}|${limit.perChannel}|${limit.perTemplate}`;
    const group = groups.get(id) ?? { scope: limit.scope, perChannel: limit.perChannel, perTemplate: limit.perTemplate, limits: [] };
    group.limits.push(limit);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** One window of a counter, as it is written. */
export interface CounterWindow {
  /** Attribute holding the digests counted in the current window: `w<seconds>_<window index>`. */
  readonly attribute: string;
  readonly max: number;
  /**
   * The window before it, removed in the same write so a busy counter does not grow; absent for the
   * longest window, whose previous window is another item.
   */
  readonly previousAttribute: string | undefined;
}

/** One counter a message must pass: one conditional write. */
export interface ScopeCount {
  readonly scope: LimitScope;
  /** Partition of the counter item: a hash of the class, scope, partitioning and value (never the value itself). */
  readonly partition: string;
  /** The longest window's index: a new item per longest window, so TTL removes old ones whole. */
  readonly sort: string;
  readonly windows: readonly CounterWindow[];
  /** TTL (epoch seconds): the end of the longest window. */
  readonly expiresAt: number;
  /** The limits behind it, for the suppression reason. */
  readonly limits: readonly MessageLimit[];
}

/** What of a message the limits look at. */
export interface LimitSubject {
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: Channel;
  readonly templateId: string;
  /** The validated destination address. */
  readonly address: string;
}

/** Prefix of every counter item's partition key: no ledger key (hex) starts with it. */
export const COUNTER_PARTITION_PREFIX = 'limit#';

/**
 * The counters a message must pass, in the order they are written: address, recipient, number block.
 * `countAtMs` is the message's first claim (`createdAt`), never the attempt's time: every later attempt
 * (redelivery, takeover, reclaimer, resend) writes to the same windows and finds itself counted.
 * Pure.
 */
export function scopeCounts(messageClassName: string, limits: readonly MessageLimit[], subject: LimitSubject, countAtMs: number): ScopeCount[] {
  const order: readonly LimitScope[] = LIMIT_SCOPES;
  const groups = groupLimits(limits).sort((a, b) => order.indexOf(a.scope) - order.indexOf(b.scope));
  const counts: ScopeCount[] = [];
  for (const group of groups) {
    const value = scopeValue(group.scope, subject);
    if (value === undefined) continue;
    const longest = Math.max(...group.limits.map((l) => l.windowSeconds));
    const countAtSeconds = Math.floor(countAtMs / 1000);
    const longIndex = Math.floor(countAtSeconds / longest);
    const material = JSON.stringify([
      'notifier-limit-v1',
      messageClassName,
      group.scope,
      group.perChannel ? subject.channel : '',
      group.perTemplate ? subject.templateId : '',
      value,
    ]);
    counts.push({
      scope: group.scope,
      partition: COUNTER_PARTITION_PREFIX + createHash('sha256').update(material, 'utf8').digest('hex').slice(0, 32),
      sort: `${longest}:${longIndex}`,
      windows: [...group.limits]
        .sort((a, b) => a.windowSeconds - b.windowSeconds)
        .map((limit) => {
          const index = Math.floor(countAtSeconds / limit.windowSeconds);
          return {
            attribute: `w${limit.windowSeconds}_${index}`,
            max: limit.max,
            previousAttribute: limit.windowSeconds === longest ? undefined : `w${limit.windowSeconds}_${index - 1}`,
          };
        }),
      expiresAt: (longIndex + 1) * longest,
      limits: group.limits,
    });
  }
  return counts;
}

/** A number block: the E.164 number without its last 3 digits. */
export function numberBlockOf(phoneNumber: string): string {
  return phoneNumber.slice(0, -3);
}

function scopeValue(scope: LimitScope, subject: LimitSubject): string | undefined {
  switch (scope) {
    case 'address':
      return subject.address;
    case 'recipient':
      return subject.recipientId;
    case 'number-block':
      return subject.channel === 'sms' ? numberBlockOf(subject.address) : undefined;
  }
}

/**
 * What a counter holds for a message: 16 bytes of a hash of its event id. Per event, not per key, so
 * the messages of one event never count against each other (one event's e-mail and SMS to one person
 * take one slot of a counter they share), and every attempt of a message finds its own digest.
 * 128 bits: a producer choosing event ids cannot make two collide.
 */
export function countDigest(eventId: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(JSON.stringify(['notifier-count-v1', eventId]), 'utf8').digest().subarray(0, 16));
}

/** "5 per 10 min, 10 per 24 h": for reasons and docs. */
export function describeLimits(limits: readonly MessageLimit[]): string {
  return [...limits]
    .sort((a, b) => a.windowSeconds - b.windowSeconds)
    .map((l) => `${l.max} per ${describeSeconds(l.windowSeconds)}`)
    .join(', ');
}

function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 86_400) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
