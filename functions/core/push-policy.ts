import * as v from 'valibot';
import { jsonStrictObject } from './json-objects';
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
   * dropped, never shown late. Counted from each send. @default 86400 (a day)
   */
  lifetimeSeconds: v.optional(lifetime, 86_400),
  /** @default 'high' (what APNs and FCM do for a notification that says nothing) */
  priority: v.optional(v.picklist(PUSH_PRIORITIES), 'high'),
  /**
   * An event data field that says how long the content stays true (a sign-in code's validity). When
   * the event gives it as a number, the push lives exactly that long instead of `lifetimeSeconds`.
   * @default none
   */
  validityFromData: v.optional(
    jsonStrictObject({
      field: v.pipe(v.string(), v.regex(FIELD_NAME, 'a data field name: letters, digits and _ (not first), at most 64')),
      unit: v.picklist(['seconds', 'minutes']),
    }),
  ),
});

/** A class's push settings, with defaults applied. */
export type PushPolicy = v.InferOutput<typeof PUSH_POLICY_SCHEMA>;
/** Push settings as a deployment gives them (each may be left out). */
export type PushPolicyDefinition = v.InferInput<typeof PUSH_POLICY_SCHEMA>;

/** Push settings of a class that gives none and overrides no built-in class. */
export const DEFAULT_PUSH_POLICY: PushPolicy = { lifetimeSeconds: 86_400, priority: 'high' };

const SECONDS_PER_UNIT = { seconds: 1, minutes: 60 } as const;

/**
 * How long the content of one message stays true, from the event's data, when the class names a data
 * field for it and the event gives a number there (or a string of digits); otherwise undefined, and
 * the class's own lifetime applies. Capped at {@link MAX_PUSH_LIFETIME_SECONDS}.
 */
export function validForSeconds(policy: PushPolicy, data: Readonly<Record<string, unknown>>): number | undefined {
  const from = policy.validityFromData;
  if (!from) return undefined;
  const value = data[from.field];
  const amount = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(amount) || amount < 0) return undefined;
  return Math.min(Math.floor(amount * SECONDS_PER_UNIT[from.unit]), MAX_PUSH_LIFETIME_SECONDS);
}

/** The lifetime one push is sent with: its content's own validity when known, else the class's. */
export function pushLifetimeSeconds(policy: PushPolicy, validFor: number | undefined): number {
  return validFor ?? policy.lifetimeSeconds;
}
