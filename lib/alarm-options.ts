import { Duration } from 'aws-cdk-lib';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { DEFAULT_METRIC_PERIOD } from './metrics';

/** Alarm thresholds and where alarms are sent. */
export interface NotifierAlarmOptions {
  /**
   * An existing topic alarms (and their return to OK) are sent to, instead of one created here.
   * Its owner manages its subscribers and its policy, which must let `cloudwatch.amazonaws.com` publish
   * (nothing is added to it: a first statement would replace SNS's default policy and lock out its other publishers).
   * @default - a topic is created (TLS-only, publishable by this stack's alarms only)
   */
  readonly topic?: sns.ITopic;
  /**
   * E-mail addresses subscribed to the alarm topic (each must confirm the subscription e-mail after deploy).
   * @default - no subscription: synth warns, because no alarm would reach anyone
   */
  readonly emails?: readonly string[];
  /**
   * Period of every alarm.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
  /**
   * Alarm when suppressed duplicates exceed this percentage of handled messages
   * (DuplicateSuppressed / (DuplicateSuppressed + Sent)): the broker redelivers more than expected.
   * @default 5
   */
  readonly duplicateSuppressedRatePercent?: number;
  /**
   * Alarm when permanent failures exceed this percentage of attempted messages
   * (PermanentFailure / (PermanentFailure + Sent)).
   * @default 5
   */
  readonly permanentFailureRatePercent?: number;
  /**
   * Alarm when suppressed messages (a limit or a destination rule stopped them) exceed this percentage of
   * messages the sender decided (Suppressed / (Suppressed + Sent)): a likely SMS-pumping or sign-up attack,
   * or a producer in a loop.
   * @default 10
   */
  readonly suppressedRatePercent?: number;
  /**
   * Alarm when bulk e-mails to contacts who unsubscribed exceed this percentage of the sender's messages
   * (Unsubscribed / (Unsubscribed + Sent)): a producer keeps mailing people who left its list.
   * @default 5
   */
  readonly unsubscribedRatePercent?: number;
  /**
   * Alarm when bulk texts to numbers that opted out exceed this percentage of the sender's messages
   * (OptedOut / (OptedOut + Sent)): a producer keeps texting people who replied STOP.
   * @default 5
   */
  readonly optedOutRatePercent?: number;
  /**
   * Alarm when bulk messages held for quiet hours exceed this percentage of the sender's messages
   * (QuietHoursDeferred / (QuietHoursDeferred + Sent)): campaigns are sent into their recipients' night, and come
   * due together at the window's end.
   * @default 50
   */
  readonly quietHoursDeferredRatePercent?: number;
  /**
   * Consecutive periods a rate must stay above its threshold before its alarm fires.
   * @default 3
   */
  readonly rateEvaluationPeriods?: number;
  /**
   * Alarm when the oldest message in the main queue is older than this.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAge?: Duration;
  /**
   * Alarm when providers throttle more than this percentage of sends
   * (ProviderThrottled / (ProviderThrottled + Sent), sender and reclaimer) for `rateEvaluationPeriods` periods:
   * the send rates are above what the account grants. The pace is meant to keep throttling at or under 1%.
   * @default 1
   */
  readonly providerThrottledRatePercent?: number;
  /**
   * Alarm when the send-rate governor defers messages in every period for this long: demand has stayed
   * above the account's send rate (a whole number of periods, at most one day).
   * @default Duration.hours(1)
   */
  readonly sustainedRateLimiting?: Duration;
  /**
   * Alarm when the oldest message in the main queue is older than this: a backlog that does not drain at
   * the account's rate is on its way to the dead-letter queue or to expiry. Must be below the loss
   * horizon (the shorter of queue retention and the least time a message deferred on every receive
   * takes to reach the dead-letter queue).
   * @default - a quarter of that horizon (27,618 s, about 7.7 h, with the default queue and backoff)
   */
  readonly backlogAge?: Duration;
  /**
   * Alarm when the configuration set's SES bounce rate (`Reputation.BounceRate`) exceeds this percentage.
   * SES puts an account under review at 5% and may pause sending at 10%; 2% is the ceiling SES advises
   * staying under, so the alarm leaves time to act before a review.
   * @default 2
   */
  readonly sesBounceRatePercent?: number;
  /**
   * Alarm when the configuration set's SES complaint rate (`Reputation.ComplaintRate`) exceeds this percentage.
   * SES reviews an account at 0.1% and may pause sending at 0.5%: half the review threshold.
   * @default 0.05
   */
  readonly sesComplaintRatePercent?: number;
  /**
   * Alarm when more than this many bounces of e-mails SES had accepted reach the ledger in one hour
   * (`LateBounce`, counted by the status Lambda): addresses producers send to have gone bad.
   * @default 10
   */
  readonly lateBouncesPerHour?: number;
  /**
   * Alarm when more than this many complaints reach the ledger in one hour (`LateComplaint`): a
   * transactional notifier should see none, and each one weighs on the account's reputation.
   * @default 0
   */
  readonly lateComplaintsPerHour?: number;
  /**
   * With SMS enabled, alarm when the account's SMS delivery success rate (`AWS/SNS SMSSuccessRate`) stays
   * below this percentage for two hours: SNS accepted messages that the carriers did not deliver.
   * @default 90
   */
  readonly smsSuccessRatePercent?: number;
}

/** Defaults of the account-protection alarms (see each option for the reason). */
export const ACCOUNT_ALARM_DEFAULTS = {
  sesBounceRatePercent: 2,
  sesComplaintRatePercent: 0.05,
  lateBouncesPerHour: 10,
  lateComplaintsPerHour: 0,
  smsSuccessRatePercent: 90,
} as const;

/** Default of {@link NotifierAlarmOptions.sustainedRateLimiting}. */
export const DEFAULT_SUSTAINED_RATE_LIMITING = Duration.hours(1);

/** CloudWatch's longest evaluation window for an alarm (periods x period). */
const MAX_ALARM_WINDOW_SECONDS = 86_400;

/**
 * Every alarm option the notifier cannot honour, each with the value given. `backlogLossHorizon` is the
 * earliest a waiting message can be lost (see `lib/backlog-age.ts`): a backlog alarm at or past it fires too late.
 */
export function alarmOptionViolations(options: NotifierAlarmOptions, backlogLossHorizon: Duration): string[] {
  const violations: string[] = [];
  const period = (options.period ?? DEFAULT_METRIC_PERIOD).toSeconds();
  const throttled = options.providerThrottledRatePercent;
  if (throttled !== undefined && !(Number.isFinite(throttled) && throttled >= 0 && throttled < 100)) {
    violations.push(`alarms.providerThrottledRatePercent (${throttled}) must be a percentage from 0 to below 100`);
  }
  for (const key of ['sesBounceRatePercent', 'sesComplaintRatePercent', 'smsSuccessRatePercent'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0 && value < 100)) {
      violations.push(`alarms.${key} (${value}) must be a percentage above 0 and below 100`);
    }
  }
  for (const key of ['lateBouncesPerHour', 'lateComplaintsPerHour'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
      violations.push(`alarms.${key} (${value}) must be a whole number of events, 0 or more`);
    }
  }
  const sustained = options.sustainedRateLimiting?.toSeconds({ integral: false });
  if (sustained !== undefined && !(sustained >= period && sustained % period === 0 && sustained <= MAX_ALARM_WINDOW_SECONDS)) {
    violations.push(
      `alarms.sustainedRateLimiting (${sustained}s) must be a whole number of alarm periods (${period}s), at most ${MAX_ALARM_WINDOW_SECONDS}s (CloudWatch's longest alarm window)`,
    );
  }
  const backlogAge = options.backlogAge?.toSeconds({ integral: false });
  const horizon = backlogLossHorizon.toSeconds({ integral: false });
  if (backlogAge !== undefined && !(backlogAge > 0 && backlogAge < horizon)) {
    violations.push(
      `alarms.backlogAge (${backlogAge}s) must be above 0 and below the backlog loss horizon (${horizon}s, ` +
        'the shorter of queue retention and the least time a message deferred on every receive takes to reach the DLQ), ' +
        'or it fires only after messages may be lost',
    );
  }
  return violations;
}
