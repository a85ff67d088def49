import * as v from 'valibot';
import { ConfigurationError } from '../errors';
import { jsonObject } from '../json-objects';
import { describeProblems, validate } from '../schema';
import { LIMITS_SCHEMA, type MessageLimit, type MessageLimitDefinition } from './message-limits';
import { DEFAULT_PUSH_POLICY, PUSH_POLICY_SCHEMA, type PushPolicy, type PushPolicyDefinition } from '../templates/push-policy';
import { QUIET_HOURS_SCHEMA, type QuietHours } from './quiet-hours';

/**
 * What to do when a provider call's outcome is unknown (timeout, 5xx, crash mid-send):
 * - `resend`: send again with the same key; a rare duplicate beats a miss (one-time codes).
 * - `give-up`: mark UNKNOWN; a rare miss beats a duplicate (marketing).
 * - `lookup`: decide by delivery evidence for our key; without evidence after
 *   `evidenceWaitSeconds`, fall back to `lookupFallback`.
 */
export type AmbiguityPolicy = 'resend' | 'give-up' | 'lookup';

/** The longest evidence window of a class's fallback: SQS's largest DelaySeconds (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html). */
export const MAX_FALLBACK_WITHOUT_EVIDENCE_SECONDS = 900;

const MessageClassSchema = jsonObject({
  name: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,63}$/)),
  onAmbiguous: v.picklist(['resend', 'give-up', 'lookup']),
  lookupFallback: v.optional(v.picklist(['resend', 'give-up']), 'give-up'),
  evidenceWaitSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(86_400)), 300),
  smsType: v.optional(v.picklist(['Transactional', 'Promotional']), 'Transactional'),
  /**
   * `resend` and `give-up` classes: how long an unknown outcome waits for delivery events where the provider's
   * events carry the key (End User Messaging SMS) before the policy applies. Left out (or 0): the policy at once.
   */
  evidenceWindowSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(86_400))),
  /**
   * End User Messaging's `TimeToLive` for this class's texts (5 s to 72 h), counted from the event's occurredAt: a
   * text with less than 5 s of it left is not sent (message-lifetime.ts). Left out: the service's 72 hours.
   */
  smsTimeToLiveSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(5), v.maxValue(259_200))),
  /**
   * How long after its first claim a message of this class may still be retried (settle-bound.ts): past it, the
   * next attempt ends it without a call, UNKNOWN if a call may have sent it, else FAILED (`SettleBoundReached`).
   * Never more than half the ledger retention, which is also the bound when left out. Left out: the built-in
   * class's of that name, else half the retention.
   */
  settleWithinSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(60))),
  /**
   * Abuse limits (see message-limits.ts); `[]` means the class is never counted and costs no write.
   * Left out: the built-in class's of that name (an override of `otp` keeps its limits), else none.
   */
  limits: v.optional(LIMITS_SCHEMA),
  /**
   * Push lifetime and priority (see push-policy.ts). Left out: the built-in class's of that name,
   * else {@link DEFAULT_PUSH_POLICY}.
   */
  push: v.optional(PUSH_POLICY_SCHEMA),
  /**
   * Consent, as data beside the limits (see consent.ts): a bulk class needs the recipient's consent and an
   * unsubscribe path, so its e-mail carries SES's one-click unsubscribe and it is never sent to someone
   * who unsubscribed or opted out. Left out: the built-in class's of that name, else false.
   */
  bulk: v.optional(v.boolean()),
  /** Quiet hours of a bulk class (quiet-hours.ts); `null` removes them. Left out: the built-in class's of that name, else none. */
  quietHours: v.optional(QUIET_HOURS_SCHEMA),
  /**
   * Channel fallback of this class's recipients who name a `fallback` list (docs/design/fallback.md). Left out: the
   * built-in class's of that name, else {@link DEFAULT_FALLBACK_POLICY}.
   */
  fallback: v.optional(
    jsonObject({
      /** Whether the next channel is ever sent. @default true */
      enabled: v.optional(v.boolean(), true),
      /**
       * The one exception to "only when certainly undelivered": fall back when a sent (or possibly sent) message has
       * no delivery evidence this many seconds after it settled (counted `FallbackWithoutEvidence`). At most 900: the
       * durable timer is SQS's DelaySeconds, whose maximum is 900 s (SendMessage API reference). @default none: never
       */
      withoutEvidenceSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(MAX_FALLBACK_WITHOUT_EVIDENCE_SECONDS))),
    }),
  ),
});

/** A class's channel fallback (see the `fallback` field of a class). */
export interface FallbackPolicy {
  readonly enabled: boolean;
  readonly withoutEvidenceSeconds?: number;
}

/** A class of a deployment's own that says nothing of fallback: the next channel only when certainly undelivered. */
export const DEFAULT_FALLBACK_POLICY: FallbackPolicy = { enabled: true };

export type MessageClass = Omit<v.InferOutput<typeof MessageClassSchema>, 'limits' | 'push' | 'bulk' | 'quietHours' | 'fallback'> & {
  /** @default {@link DEFAULT_FALLBACK_POLICY} (a value built before fallback existed reads as it) */
  readonly fallback?: FallbackPolicy;
  readonly limits: readonly MessageLimit[];
  readonly push: PushPolicy;
  readonly bulk: boolean;
  readonly quietHours: QuietHours | undefined;
};
/** A class as a deployment gives it (optional fields may be left out). */
export type MessageClassDefinition = Omit<v.InferInput<typeof MessageClassSchema>, 'limits' | 'push' | 'quietHours'> & {
  readonly limits?: readonly MessageLimitDefinition[];
  readonly push?: PushPolicyDefinition;
  readonly quietHours?: QuietHours | null;
};

const MINUTES = 60;
const HOURS = 3600;

/**
 * One-time codes sit behind "resend code" buttons and sign-up forms: the SMS-pumping target.
 * 5 per 10 minutes is Twilio Verify's per-verification limit; 10 per 24 hours sits between the AWS
 * sms-pumping sample's 5 per number per day and Auth0's 10 MFA SMS per hour; 20 per hour for a
 * number block (the number without its last 3 digits: pumping walks a premium range) lets a
 * whole office or family ask at once while a pumping run stops after 20.
 */
const OTP_LIMITS: readonly MessageLimit[] = [
  { scope: 'address', max: 5, windowSeconds: 10 * MINUTES, perChannel: false, perTemplate: false },
  { scope: 'address', max: 10, windowSeconds: 24 * HOURS, perChannel: false, perTemplate: false },
  { scope: 'recipient', max: 5, windowSeconds: 10 * MINUTES, perChannel: false, perTemplate: false },
  { scope: 'recipient', max: 10, windowSeconds: 24 * HOURS, perChannel: false, perTemplate: false },
  { scope: 'number-block', max: 20, windowSeconds: 1 * HOURS, perChannel: false, perTemplate: false },
];

/**
 * Order updates: a bound no real shop reaches (50 messages to one address in an hour), there only
 * so that a producer's runaway loop stops at the address instead of at the bill.
 */
const TRANSACTIONAL_LIMITS: readonly MessageLimit[] = [
  { scope: 'address', max: 50, windowSeconds: 1 * HOURS, perChannel: false, perTemplate: false },
];

/** One campaign per person per day and channel: a second send of one template the same day is a bug or a replay. */
const MARKETING_LIMITS: readonly MessageLimit[] = [
  { scope: 'recipient', max: 1, windowSeconds: 24 * HOURS, perChannel: true, perTemplate: true },
];

/**
 * A sign-in code is worth showing only while it works: the push lives as long as the code's validity
 * when the event says it (`expiresInMinutes`, as the shipped login-code template has it), else 10
 * minutes, a common validity for such codes. Priority 10 / FCM high: the user is waiting, and Apple
 * asks for 10 exactly for what needs the user's attention now.
 */
const OTP_PUSH: PushPolicy = {
  lifetimeSeconds: 10 * MINUTES,
  priority: 'high',
  validityMinutesField: 'expiresInMinutes',
};

/**
 * A promotion a day late is still this week's; shown after a phone was off for a week it is noise.
 * Priority 5 / FCM normal: nothing is lost if the device shows it at its next convenient moment, which
 * is what Apple asks of such notifications (and priority 10 for them is throttled).
 */
const MARKETING_PUSH: PushPolicy = { lifetimeSeconds: 24 * HOURS, priority: 'normal' };

/**
 * Evidence windows where the provider's events carry the key (End User Messaging SMS). End User Messaging
 * documents no latency for its early events (only that carrier receipts may take up to 72 hours); its own
 * example records stamp the event 0.3 s (TEXT_SUCCESSFUL, messaging-events page) and 0.4 s (EventBridge page)
 * after the request. The path to the ledger (SNS topic, SQS queue, status Lambda) adds seconds, so:
 * - otp waits 30 s: a code that did go out shows its TEXT_PENDING long before, and a user waits half a
 *   minute more for one that did not, instead of getting two codes;
 * - marketing waits 300 s, as transactional e-mail does for evidence: a promotion is not urgent, and every
 *   text settled by evidence is one not given up as UNKNOWN.
 */
const OTP_EVIDENCE_WINDOW_SECONDS = 30;
/** How long an otp message may be retried after its first claim (see `settleWithinSeconds`). */
const OTP_SETTLE_WITHIN_SECONDS = 30 * MINUTES;
const MARKETING_EVIDENCE_WINDOW_SECONDS = 300;

/**
 * A sign-in code on a second channel two minutes later beats a user locked out: the code's push or text has shown no
 * delivery in 120 s (a text's TEXT_DELIVERED comes in seconds; a push has no receipt at all, so an otp push with a
 * fallback is always followed by the next channel after 120 s, which is the point: nobody can tell it arrived).
 */
const OTP_FALLBACK: FallbackPolicy = { enabled: true, withoutEvidenceSeconds: 120 };
/** A promotion is never worth a second channel unless a deployment says so: the recipient's channel choice stands. */
const MARKETING_FALLBACK: FallbackPolicy = { enabled: false };

/**
 * No marketing text before 8 a.m. or after 9 p.m. in the recipient's time: the TCPA's hours for telephone
 * solicitation (47 CFR 64.1200(c)(1)); several US states are stricter (8 p.m.), which a deployment sets
 * with its own `quietHours`.
 */
const MARKETING_QUIET_HOURS: QuietHours = { start: '21:00', end: '08:00', channels: ['sms'] };

/**
 * Classes that must always reach the recipient: a one-time code or an order update is never
 * unsubscribable, never carries the unsubscribe headers and is never held by quiet hours.
 */
export const NEVER_BULK_CLASSES: readonly string[] = ['otp', 'transactional'];

/** Classes shipped with the product. A deployment may add or override by name. */
export const BUILT_IN_MESSAGE_CLASSES: readonly MessageClass[] = [
  {
    name: 'otp',
    onAmbiguous: 'resend',
    lookupFallback: 'resend',
    evidenceWaitSeconds: 0,
    evidenceWindowSeconds: OTP_EVIDENCE_WINDOW_SECONDS,
    // A code is rarely valid for longer; one that arrives after it expired is worse than none.
    smsTimeToLiveSeconds: 600,
    // Three times a code's usual 10 minutes: room for the lane's back-offs and a short provider outage, while a
    // provider that answers 500 on every call gets about 14 resends (one per claim timeout), not one per run for days.
    settleWithinSeconds: OTP_SETTLE_WITHIN_SECONDS,
    smsType: 'Transactional',
    limits: OTP_LIMITS,
    push: OTP_PUSH,
    bulk: false,
    quietHours: undefined,
    fallback: OTP_FALLBACK,
  },
  {
    name: 'transactional',
    onAmbiguous: 'lookup',
    lookupFallback: 'resend',
    evidenceWaitSeconds: 300,
    smsType: 'Transactional',
    limits: TRANSACTIONAL_LIMITS,
    // Order updates: worth showing for days, acted on (see DEFAULT_PUSH_POLICY).
    push: DEFAULT_PUSH_POLICY,
    bulk: false,
    quietHours: undefined,
    fallback: DEFAULT_FALLBACK_POLICY,
  },
  {
    name: 'marketing',
    onAmbiguous: 'give-up',
    lookupFallback: 'give-up',
    evidenceWaitSeconds: 0,
    evidenceWindowSeconds: MARKETING_EVIDENCE_WINDOW_SECONDS,
    // A promotion handed off a day late has missed its moment.
    smsTimeToLiveSeconds: 86_400,
    smsType: 'Promotional',
    limits: MARKETING_LIMITS,
    push: MARKETING_PUSH,
    bulk: true,
    quietHours: MARKETING_QUIET_HOURS,
    fallback: MARKETING_FALLBACK,
  },
];

export type MessageClassRegistry = ReadonlyMap<string, MessageClass>;

/**
 * Built-in classes plus a deployment's own, given as a JSON array of class objects
 * (for example from the `MESSAGE_CLASSES` environment variable).
 *
 * @throws ConfigurationError naming the offending entry.
 */
export function buildMessageClassRegistry(extraJson?: string): MessageClassRegistry {
  const registry = new Map(BUILT_IN_MESSAGE_CLASSES.map((c) => [c.name, c]));
  if (!extraJson?.trim()) return registry;
  let parsed: unknown;
  try {
    parsed = JSON.parse(extraJson);
  } catch (error) {
    throw new ConfigurationError(`MESSAGE_CLASSES is not JSON: ${(error as Error).message}`);
  }
  const result = validate(v.array(MessageClassSchema), parsed);
  if (!result.success) throw new ConfigurationError(`MESSAGE_CLASSES is invalid at ${describeProblems(result.problems, 1)}`);
  const problems: string[] = [];
  for (const { limits, push, bulk, quietHours, fallback, ...messageClass } of result.output) {
    const builtIn = registry.get(messageClass.name);
    const settleWithinSeconds = messageClass.settleWithinSeconds ?? builtIn?.settleWithinSeconds;
    const resolved: MessageClass = {
      ...messageClass,
      ...(settleWithinSeconds === undefined ? {} : { settleWithinSeconds }),
      limits: limits ?? builtIn?.limits ?? [],
      push: push ?? builtIn?.push ?? DEFAULT_PUSH_POLICY,
      bulk: bulk ?? builtIn?.bulk ?? false,
      quietHours: quietHours === null ? undefined : (quietHours ?? builtIn?.quietHours),
      fallback: fallback ?? builtIn?.fallback ?? DEFAULT_FALLBACK_POLICY,
    };
    if (resolved.bulk && NEVER_BULK_CLASSES.includes(resolved.name)) {
      problems.push(`${resolved.name}: is never bulk (a one-time code or an order update must not be unsubscribable)`);
    }
    if (resolved.quietHours && !resolved.bulk) {
      problems.push(`${resolved.name}: quietHours need "bulk": true (only bulk messages wait for the recipient's morning)`);
    }
    registry.set(resolved.name, resolved);
  }
  if (problems.length > 0) throw new ConfigurationError(`MESSAGE_CLASSES is invalid: ${problems.join('; ')}`);
  return registry;
}

/** What the ledger should do with a message whose previous attempt's outcome is unknown. */
export type AmbiguityResolution =
  | { readonly action: 'send'; readonly possibleDuplicate: boolean; readonly afterWait?: boolean }
  | { readonly action: 'give-up'; readonly afterWait?: boolean }
  | { readonly action: 'mark-sent' }
  | { readonly action: 'wait' };

/** Delivery evidence for one key: from a provider look-up or the delivery-status stream. */
export type DeliveryEvidence = 'sent' | 'not-sent' | 'none';

/**
 * Pure decision for the ambiguous window.
 *
 * @param ambiguousForMs how long the outcome has been unknown (bounds the wait for evidence).
 * @param keyedEvidence whether the channel's provider reports events carrying the key (`resend` and
 *   `give-up` classes then wait their `evidenceWindowSeconds` for them).
 */
export function resolveAmbiguity(
  messageClass: MessageClass,
  evidence: DeliveryEvidence,
  ambiguousForMs: number,
  { keyedEvidence = false }: { readonly keyedEvidence?: boolean } = {},
): AmbiguityResolution {
  // Evidence, whenever there is some, beats every policy: the policies are for when nobody knows.
  if (evidence === 'sent') return { action: 'mark-sent' };
  if (evidence === 'not-sent') return { action: 'send', possibleDuplicate: false };
  const window = keyedEvidence && messageClass.onAmbiguous !== 'lookup' ? (messageClass.evidenceWindowSeconds ?? 0) : 0;
  if (ambiguousForMs < window * 1000) return { action: 'wait' };
  if (messageClass.onAmbiguous === 'lookup') {
    if (ambiguousForMs < messageClass.evidenceWaitSeconds * 1000) return { action: 'wait' };
    return fallback(messageClass.lookupFallback, messageClass.evidenceWaitSeconds > 0);
  }
  return fallback(messageClass.onAmbiguous, window > 0);
}

/** `afterWait`: the class waited for evidence that never came, and its wait, not evidence, settles the message. */
function fallback(policy: 'resend' | 'give-up', afterWait: boolean): AmbiguityResolution {
  const settled = afterWait ? { afterWait: true } : {};
  return policy === 'resend' ? { action: 'send', possibleDuplicate: true, ...settled } : { action: 'give-up', ...settled };
}
