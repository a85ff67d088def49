import { Duration } from 'aws-cdk-lib';
import { ENV } from '../functions/core/sender-config';
import { DEFAULT_BACKOFF, type BackoffSettings } from '../functions/core/queue/visibility-backoff';

/**
 * Account-wide sends per second per channel for this stack. The sender and the reclaimer split each
 * rate between every process that may send at once (`SEND_RATE_SHARES`: maximum concurrency + 1).
 */
export interface SendRates {
  /**
   * E-mails per second (SES). Set it below the account's rate when other senders share the account.
   * @default - SES `MaxSendRate`, read with `GetAccount` at cold start
   */
  readonly emailPerSecond?: number;
  /**
   * SMS per second (SNS `Publish` to phone numbers), e.g. 20 for a default account.
   * @default - not paced
   */
  readonly smsPerSecond?: number;
  /**
   * Mobile pushes per second (SNS `Publish` to platform endpoints).
   * @default - not paced
   */
  readonly pushPerSecond?: number;
}

/**
 * The visibility backoff of records the providers throttled: `base` x 2^(receives - 1), at most `cap`,
 * jittered between half and all of the step. Whole seconds; synth checks it against `maxReceiveCount`
 * and the queue retention.
 */
export interface ThrottleBackoff {
  /**
   * The first step.
   * @default Duration.seconds(10)
   */
  readonly base?: Duration;
  /**
   * The largest step (at most 12 hours, SQS's visibility limit); a spent daily quota pauses a record this long.
   * @default Duration.minutes(40)
   */
  readonly cap?: Duration;
}

/** The highest rate the handlers accept (`SEND_RATE_*_PER_SECOND`). */
export const MAX_SEND_RATE_PER_SECOND = 100_000;

const RATE_ENV = {
  emailPerSecond: ENV.sendRateEmailPerSecond,
  smsPerSecond: ENV.sendRateSmsPerSecond,
  pushPerSecond: ENV.sendRatePushPerSecond,
} as const satisfies Record<keyof SendRates, string>;

/** The backoff in seconds, defaults applied (fractions kept, so a violation can name them). */
export function resolveThrottleBackoff(backoff: ThrottleBackoff | undefined): BackoffSettings {
  return {
    baseSeconds: (backoff?.base ?? Duration.seconds(DEFAULT_BACKOFF.baseSeconds)).toSeconds({ integral: false }),
    capSeconds: (backoff?.cap ?? Duration.seconds(DEFAULT_BACKOFF.capSeconds)).toSeconds({ integral: false }),
  };
}

/**
 * Every rate that is not a positive number of sends per second, and every backoff step that is not
 * whole seconds, each with the value given. (Base <= cap <= 12 h, and the backoff against
 * `maxReceiveCount` and retention, are timing invariants: `functions/core/queue/timing-invariants.ts`.)
 */
export function sendPaceViolations(rates: SendRates | undefined, backoff: BackoffSettings): string[] {
  const violations: string[] = [];
  for (const key of Object.keys(RATE_ENV) as (keyof SendRates)[]) {
    const rate = rates?.[key];
    if (rate === undefined) continue;
    if (!(Number.isFinite(rate) && rate > 0 && rate <= MAX_SEND_RATE_PER_SECOND)) {
      violations.push(
        `sendRates.${key} (${rate}) must be a positive number of sends per second, at most ${MAX_SEND_RATE_PER_SECOND}`,
      );
    }
  }
  for (const [name, seconds] of [
    ['base', backoff.baseSeconds],
    ['cap', backoff.capSeconds],
  ] as const) {
    if (!Number.isInteger(seconds)) {
      violations.push(`throttleBackoff.${name} (${seconds}s) must be a whole number of seconds`);
    }
  }
  return violations;
}

/** The variables the sender and the reclaimer read for their pace: the rates given, and the backoff always. */
export function sendPaceEnvironment(rates: SendRates | undefined, backoff: BackoffSettings): Record<string, string> {
  const environment: Record<string, string> = {
    // Always set, so the functions back off with exactly the steps synth checked.
    [ENV.throttleBackoffBaseSeconds]: String(backoff.baseSeconds),
    [ENV.throttleBackoffCapSeconds]: String(backoff.capSeconds),
  };
  for (const [key, variable] of Object.entries(RATE_ENV) as [keyof SendRates, string][]) {
    const rate = rates?.[key];
    if (rate !== undefined) environment[variable] = String(rate);
  }
  return environment;
}
