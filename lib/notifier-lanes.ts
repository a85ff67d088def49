import type { Duration } from 'aws-cdk-lib';
import { BUILT_IN_MESSAGE_CLASSES } from '../functions/core/policy/message-class';
import { ENV } from '../functions/core/sender-config';
import {
  DEFAULT_BULK_CLASSES,
  DEFAULT_BULK_RATE_SHARE,
  lanePace,
  URGENT_THROTTLE_BACKOFF_BASE_SECONDS,
  type LaneName,
  type LanePace,
} from '../functions/core/policy/send-lanes';
import type { BackoffSettings } from '../functions/core/queue/visibility-backoff';

/**
 * Priority lanes: the urgent lane (one-time codes, order updates: every class but the bulk ones) and
 * the bulk lane (marketing), each with its own queue, dead-letter queue, sender and share of the
 * account's send rate, so that a login code never waits behind a newsletter.
 */
export interface LaneOptions {
  /**
   * Message classes sent in the bulk lane; every other class (and an event without one) goes urgent.
   * @default ['marketing']
   */
  readonly bulkClasses?: readonly string[];
  /**
   * The bulk lane's share of each channel's account rate (0.05 to 0.95). The rest is kept for urgent sends,
   * which may also use the whole rate in a burst: the bulk lane then gives way on the providers' throttling answers.
   * @default 0.8
   */
  readonly bulkRateShare?: number;
  /**
   * Most concurrent urgent-lane sender invocations (2-1000). The bulk lane's is `maxConcurrency`.
   * @default 5
   */
  readonly urgentMaxConcurrency?: number;
  /**
   * First visibility-backoff step of a throttled urgent record (whole seconds, at most `throttleBackoff.cap`).
   * The bulk lane keeps `throttleBackoff.base`.
   * @default Duration.seconds(1)
   */
  readonly urgentThrottleBackoffBase?: Duration;
}

/** One sender lane as the stack builds it. */
export interface ResolvedLane {
  /** `urgent` or `bulk`; `single` without lanes (one queue for every class). */
  readonly name: LaneName | 'single';
  /** Prefix of its construct ids: none for the urgent or single lane (the ids of the stack before lanes), `Bulk`. */
  readonly idPrefix: '' | 'Bulk';
  readonly maxConcurrency: number;
  readonly pace: LanePace;
  readonly throttleBackoff: BackoffSettings;
}

/** The lanes of a notifier, defaults applied. */
export interface ResolvedLanes {
  /** Whether classes are split into lanes (an event topic routes them). */
  readonly enabled: boolean;
  /** The urgent (or single) lane first. */
  readonly lanes: readonly ResolvedLane[];
  readonly bulkClasses: readonly string[];
}

/** Defaults of {@link LaneOptions}. */
export const LANE_DEFAULTS = { urgentMaxConcurrency: 5, bulkRateShare: DEFAULT_BULK_RATE_SHARE } as const;

/** What the lanes are resolved from. */
export interface LaneInputs {
  /** The `lanes` prop. */
  readonly lanes: LaneOptions | false | undefined;
  /** Whether an existing queue is consumed (then there is one lane unless lanes are asked for). */
  readonly existingQueue: boolean;
  /** `maxConcurrency`, resolved: the bulk lane's (or the single lane's). */
  readonly maxConcurrency: number;
  /** `throttleBackoff`, resolved: the bulk lane's (or the single lane's). */
  readonly throttleBackoff: BackoffSettings;
}

export function resolveLanes(input: LaneInputs): ResolvedLanes {
  const options = input.lanes;
  if (options === false || (options === undefined && input.existingQueue)) {
    return {
      enabled: false,
      bulkClasses: [],
      lanes: [
        {
          name: 'single',
          idPrefix: '',
          maxConcurrency: input.maxConcurrency,
          // The reclaimer holds one more share.
          pace: { sendRateShares: input.maxConcurrency + 1, accountShare: 1, yieldsToThrottling: false },
          throttleBackoff: input.throttleBackoff,
        },
      ],
    };
  }
  const capacity = {
    urgentMaxConcurrency: options?.urgentMaxConcurrency ?? LANE_DEFAULTS.urgentMaxConcurrency,
    bulkMaxConcurrency: input.maxConcurrency,
    bulkRateShare: options?.bulkRateShare ?? LANE_DEFAULTS.bulkRateShare,
  };
  const urgentBase = options?.urgentThrottleBackoffBase?.toSeconds({ integral: false }) ?? URGENT_THROTTLE_BACKOFF_BASE_SECONDS;
  return {
    enabled: true,
    bulkClasses: options?.bulkClasses ?? DEFAULT_BULK_CLASSES,
    lanes: [
      {
        name: 'urgent',
        idPrefix: '',
        maxConcurrency: capacity.urgentMaxConcurrency,
        pace: lanePace('urgent', capacity),
        throttleBackoff: { ...input.throttleBackoff, baseSeconds: urgentBase },
      },
      { name: 'bulk', idPrefix: 'Bulk', maxConcurrency: capacity.bulkMaxConcurrency, pace: lanePace('bulk', capacity), throttleBackoff: input.throttleBackoff },
    ],
  };
}

/** Every lane option that cannot work, each with the value given. */
export function laneViolations(
  options: LaneOptions | false | undefined,
  context: { readonly existingQueue: boolean; readonly classNames: readonly string[]; readonly throttleBackoffCapSeconds: number },
): string[] {
  if (options === false || options === undefined) return [];
  const violations: string[] = [];
  if (context.existingQueue) {
    violations.push('lanes need queues of their own: with existingQueue (one queue), set lanes: false');
  }
  const share = options.bulkRateShare;
  if (share !== undefined && !(share >= 0.05 && share <= 0.95)) {
    violations.push(`lanes.bulkRateShare (${share}) must be from 0.05 to 0.95: the rest of the account rate is kept for urgent sends`);
  }
  const urgent = options.urgentMaxConcurrency;
  if (urgent !== undefined && !(Number.isInteger(urgent) && urgent >= 2 && urgent <= 1000)) {
    violations.push(`lanes.urgentMaxConcurrency (${urgent}) must be a whole number from 2 to 1000 (an SQS event source's range)`);
  }
  const base = options.urgentThrottleBackoffBase?.toSeconds({ integral: false });
  if (base !== undefined && !(Number.isInteger(base) && base >= 1 && base <= context.throttleBackoffCapSeconds)) {
    violations.push(
      `lanes.urgentThrottleBackoffBase (${base}s) must be whole seconds, at least 1 and at most throttleBackoff.cap (${context.throttleBackoffCapSeconds}s)`,
    );
  }
  const classes = options.bulkClasses;
  if (classes !== undefined) {
    if (classes.length === 0) violations.push('lanes.bulkClasses ([]) must name at least one class; set lanes: false for one queue');
    const unknown = classes.filter((c) => !context.classNames.includes(c));
    if (unknown.length > 0) {
      violations.push(`lanes.bulkClasses names classes that do not exist (${unknown.join(', ')}); the classes are ${context.classNames.join(', ')}`);
    }
    if (new Set(classes).size !== classes.length) violations.push(`lanes.bulkClasses (${classes.join(', ')}) names a class twice`);
    if (classes.length === context.classNames.length && classes.length > 0) {
      violations.push(`lanes.bulkClasses (${classes.join(', ')}) leaves no class urgent; set lanes: false for one queue`);
    }
  }
  return violations;
}

/** The names of the message classes a deployment has: built in, plus its own. */
export function messageClassNames(extra: readonly { readonly name: string }[] | undefined): string[] {
  return [...new Set([...BUILT_IN_MESSAGE_CLASSES.map((c) => c.name), ...(extra ?? []).map((c) => c.name)])];
}

/** Where a lane's sender takes records from and forwards invalid events to. */
export interface LaneQueueUrls {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * A lane's sender environment: the notifier's, with the lane's queue, dead-letter queue, pace and
 * first backoff step. The urgent (or single) lane's is also the reclaimer's.
 */
export function laneEnvironment(
  base: Readonly<Record<string, string>>,
  lane: ResolvedLane,
  urls: LaneQueueUrls,
): Readonly<Record<string, string>> {
  const environment: Record<string, string> = {
    ...base,
    [ENV.sourceQueueUrl]: urls.queueUrl,
    [ENV.deadLetterQueueUrl]: urls.deadLetterQueueUrl,
    [ENV.sendRateShares]: String(lane.pace.sendRateShares),
    [ENV.throttleBackoffBaseSeconds]: String(lane.throttleBackoff.baseSeconds),
    [ENV.throttleBackoffCapSeconds]: String(lane.throttleBackoff.capSeconds),
  };
  if (lane.name !== 'single') {
    environment[ENV.sendLane] = lane.name;
    environment[ENV.sendRateAccountShare] = String(lane.pace.accountShare);
    environment[ENV.sendRateYieldsToThrottling] = String(lane.pace.yieldsToThrottling);
  }
  return environment;
}

/**
 * A violation every lane has, once; one that only some lanes have, once per lane, prefixed with the
 * lane's name (`urgent lane: ...`).
 */
export function mergeLaneViolations(perLane: readonly { readonly lane: string; readonly violations: readonly string[] }[]): string[] {
  const merged: string[] = [];
  for (const { lane, violations } of perLane) {
    for (const violation of violations) {
      const everyLane = perLane.every((other) => other.violations.includes(violation));
      const text = everyLane ? violation : `${lane} lane: ${violation}`;
      if (!merged.includes(text)) merged.push(text);
    }
  }
  return merged;
}
