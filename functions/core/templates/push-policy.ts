import * as v from 'valibot';
import { jsonStrictObject } from '../json-objects';
import { FIELD_NAME } from './template-definition';

/**
 * Longest lifetime a push may ask for: FCM keeps a message at most 28 days (its `ttl` maximum and
 * default). APNs takes any expiry, but a notification older than that is no longer news anywhere.
 */
export const MAX_PUSH_LIFETIME_SECONDS = 28 * 86_400;

/**
 * How urgently the platforms should deliver a class's pushes: `high` is APNs priority 10 ("send it
 * now") and FCM `high`; `normal` is APNs priority 5 (the device may wait for a convenient moment, as
 * Apple asks for anything that can) and FCM `normal` (Android may batch it while the device dozes).
 */
export const PUSH_PRIORITIES = ['high', 'normal'] as const;
export type PushPriority = (typeof PUSH_PRIORITIES)[number];

const lifetime = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(MAX_PUSH_LIFETIME_SECONDS));

/** A class's push settings (`push` in a message class). Unknown keys are refused, so a typo is not ignored. */
export const PUSH_POLICY_SCHEMA = jsonStrictObject({
  /**
   * Seconds the platform keeps trying a device that is off or offline; after that the push is
   * dropped, never shown late. Counted from the event's occurredAt (message-lifetime.ts): a push whose lifetime ran
   * out before its send is not sent. @default 259200 (3 days, as `transactional`)
   */
  lifetimeSeconds: v.optional(lifetime, 3 * 86_400),
  /** @default 'high' (what APNs and FCM do for a notification that says nothing) */
  priority: v.optional(v.picklist(PUSH_PRIORITIES), 'high'),
  /**
   * An event data field that gives, in minutes, how long the content stays true (a sign-in code's
   * validity). When the event gives a number there, the push lives exactly that long instead of
   * `lifetimeSeconds`. @default none
   */
  validityMinutesField: v.optional(v.pipe(v.string(), v.regex(FIELD_NAME))),
});

/** A class's push settings, with defaults applied. */
export type PushPolicy = v.InferOutput<typeof PUSH_POLICY_SCHEMA>;
/** Push settings as a deployment gives them (each may be left out). */
export type PushPolicyDefinition = v.InferInput<typeof PUSH_POLICY_SCHEMA>;

/**
 * Push settings of a class that gives none and overrides no built-in class, and of the built-in
 * `transactional`: an update worth showing for days (a seller has a few days to ship), not for the
 * platforms' default of four weeks; priority 10 / FCM high, since the recipient acts on it.
 */
export const DEFAULT_PUSH_POLICY: PushPolicy = { lifetimeSeconds: 3 * 86_400, priority: 'high' };

/**
 * How long the content of one message stays true, from the event's data, when the class names a data
 * field for it and the event gives a number of minutes there (a JSON number, not text); otherwise
 * undefined, and the class's own lifetime applies. Capped at {@link MAX_PUSH_LIFETIME_SECONDS}.
 */
export function validForSeconds(policy: PushPolicy, data: Readonly<Record<string, unknown>>): number | undefined {
  if (policy.validityMinutesField === undefined) return undefined;
  const minutes = data[policy.validityMinutesField];
  if (typeof minutes !== 'number' || !(minutes >= 0)) return undefined;
  return Math.min(Math.floor(minutes * 60), MAX_PUSH_LIFETIME_SECONDS);
}
