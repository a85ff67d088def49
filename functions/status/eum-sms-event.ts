import * as v from 'valibot';
import { EUM_CLAIM_VERSION_CONTEXT, EUM_KEY_CONTEXT } from '../adapters/eum-sms-provider';
import type { DeliveryStatusUpdate } from '../core/provider/delivery-status';
import { isKnownDeliveryStatus } from '../core/provider/delivery-status';
import { jsonObject, jsonRecord } from '../core/json-objects';
import { describeProblems, validate } from '../core/schema';
import type { StatusEvent } from './status-event';

/**
 * The parts of an End User Messaging SMS event (the configuration set's event destination; the record format
 * of the "Messaging Events" / "Example SMS event data" pages) the ledger uses: the type, its time, whether it is
 * final, the message id and the `Context` the sender gave `SendTextMessage`. The destination and origination
 * numbers, prices and carrier fields are deliberately not read.
 *
 * `isFinal` ("True if this is the final status for the message. There are intermediate message statuses", the
 * final one up to 72 hours later:
 * https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html) is read but not
 * required, and only the boolean `true` makes an event final: a record without it, or with anything else, is
 * read as intermediate, so a shape AWS does not promise can never make a text certainly undelivered.
 */
export const EumSmsEventSchema = jsonObject({
  eventType: v.pipe(v.string(), v.minLength(1)),
  eventVersion: v.string(),
  eventTimestamp: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  messageId: v.pipe(v.string(), v.minLength(1)),
  context: v.optional(jsonRecord(v.string(), v.string())),
  messageStatus: v.optional(v.string()),
  isFinal: v.optional(v.unknown()),
});

const KEY = /^[0-9a-f]{64}$/;
const CLAIM_VERSION = /^[1-9][0-9]{0,15}$/;

/** Whether a decoded JSON value has the shape of an End User Messaging event rather than an SES one. */
export function looksLikeEumEvent(input: unknown): boolean {
  return typeof input === 'object' && input !== null && 'eventTimestamp' in input && 'messageId' in input && !('mail' in input);
}

/**
 * One End User Messaging SMS event as a ledger status, found by the key in its `Context`. An event type the
 * ledger does not know (a type added after this code) is not guessed at: it comes back invalid and is counted.
 * An event without our key is another sender's on the same configuration set: unmatched, with no ledger read.
 */
export function statusFromEumEvent(input: unknown): StatusEvent | { readonly invalid: string } {
  const parsed = validate(EumSmsEventSchema, input);
  if (!parsed.success) return { invalid: `not an End User Messaging SMS event: ${describeProblems(parsed.problems, 1)}` };
  const event = parsed.output;
  if (!isKnownDeliveryStatus(event.eventType) || !event.eventType.startsWith('TEXT_')) {
    return { invalid: `End User Messaging event type ${safe(event.eventType)} is not recorded` };
  }
  const update: DeliveryStatusUpdate = {
    status: event.eventType,
    at: event.eventTimestamp,
    source: 'eum-sms',
    ...(event.messageStatus ? { detail: safe(event.messageStatus) } : {}),
    ...(event.isFinal === true ? {} : { intermediate: true }),
  };
  const unstated = typeof event.isFinal === 'boolean' ? {} : { finalityUnstated: true };
  const key = event.context?.[EUM_KEY_CONTEXT];
  if (key === undefined || !KEY.test(key)) return { channel: 'sms', ref: { kind: 'untagged', providerMessageId: event.messageId }, update, ...unstated };
  const version = event.context?.[EUM_CLAIM_VERSION_CONTEXT];
  const claimVersion = version !== undefined && CLAIM_VERSION.test(version) ? Number(version) : undefined;
  return {
    channel: 'sms',
    ref: { kind: 'key', key },
    update: { ...update, providerMessageId: event.messageId, ...(claimVersion !== undefined ? { claimVersion } : {}) },
    ...unstated,
  };
}

/** Enumerated values only ever hold words; anything else is cut, so no number can slip through. */
function safe(value: string): string {
  return value.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 64);
}
