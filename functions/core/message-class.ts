import * as v from 'valibot';
import { ConfigurationError } from './errors';
import { jsonObject } from './json-objects';
import { describeProblems, validate } from './schema';

/**
 * What to do when a provider call's outcome is unknown (timeout, 5xx, crash mid-send):
 * - `resend`: send again with the same key; a rare duplicate beats a miss (one-time codes).
 * - `give-up`: mark UNKNOWN; a rare miss beats a duplicate (marketing).
 * - `lookup`: decide by delivery evidence for our key; without evidence after
 *   `evidenceWaitSeconds`, fall back to `lookupFallback`.
 */
export type AmbiguityPolicy = 'resend' | 'give-up' | 'lookup';

const MessageClassSchema = jsonObject({
  name: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,63}$/)),
  onAmbiguous: v.picklist(['resend', 'give-up', 'lookup']),
  lookupFallback: v.optional(v.picklist(['resend', 'give-up']), 'give-up'),
  evidenceWaitSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(86_400)), 300),
  smsType: v.optional(v.picklist(['Transactional', 'Promotional']), 'Transactional'),
});

export type MessageClass = v.InferOutput<typeof MessageClassSchema>;

/** Classes shipped with the product. A deployment may add or override by name. */
export const BUILT_IN_MESSAGE_CLASSES: readonly MessageClass[] = [
  { name: 'otp', onAmbiguous: 'resend', lookupFallback: 'resend', evidenceWaitSeconds: 0, smsType: 'Transactional' },
  {
    name: 'transactional',
    onAmbiguous: 'lookup',
    lookupFallback: 'resend',
    evidenceWaitSeconds: 300,
    smsType: 'Transactional',
  },
  { name: 'marketing', onAmbiguous: 'give-up', lookupFallback: 'give-up', evidenceWaitSeconds: 0, smsType: 'Promotional' },
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
  for (const messageClass of result.output) registry.set(messageClass.name, messageClass);
  return registry;
}

/** What the ledger should do with a message whose previous attempt's outcome is unknown. */
export type AmbiguityResolution =
  | { readonly action: 'send'; readonly possibleDuplicate: boolean }
  | { readonly action: 'give-up' }
  | { readonly action: 'mark-sent' }
  | { readonly action: 'wait' };

/** Delivery evidence for one key: from a provider look-up or the delivery-status stream. */
export type DeliveryEvidence = 'sent' | 'not-sent' | 'none';

/**
 * Pure decision for the ambiguous window.
 *
 * @param ambiguousForMs how long the outcome has been unknown (bounds the wait for evidence).
 */
export function resolveAmbiguity(
  messageClass: MessageClass,
  evidence: DeliveryEvidence,
  ambiguousForMs: number,
): AmbiguityResolution {
  // Evidence, whenever there is some, beats every policy: the policies are for when nobody knows.
  if (evidence === 'sent') return { action: 'mark-sent' };
  if (evidence === 'not-sent') return { action: 'send', possibleDuplicate: false };
  if (messageClass.onAmbiguous === 'lookup') {
    if (ambiguousForMs < messageClass.evidenceWaitSeconds * 1000) return { action: 'wait' };
    return fallback(messageClass.lookupFallback);
  }
  return fallback(messageClass.onAmbiguous);
}

function fallback(policy: 'resend' | 'give-up'): AmbiguityResolution {
  return policy === 'resend' ? { action: 'send', possibleDuplicate: true } : { action: 'give-up' };
}
