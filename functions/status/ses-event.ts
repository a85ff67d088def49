import * as v from 'valibot';
import { SES_CLAIM_VERSION_TAG, SES_KEY_TAG } from '../adapters/ses-email-provider';
import type { DeliveryStatusUpdate } from '../core/delivery-status';
import { isKnownDeliveryStatus } from '../core/delivery-status';
import { jsonObject, jsonRecord } from '../core/json-objects';
import { describeProblems, validate } from '../core/schema';
import type { StatusEvent } from './status-event';

const Stamped = { timestamp: v.string() };

/**
 * The parts of an SES v2 configuration-set event (event publishing to SNS or EventBridge) the
 * ledger uses. Everything else (addresses, headers, diagnostic codes) is deliberately not read.
 */
export const SesEventSchema = jsonObject({
  // SES writes this one type with a space ("Rendering Failure"); the ledger stores it as one word.
  eventType: v.pipe(
    v.string(),
    v.minLength(1),
    v.transform((type) => (type === 'Rendering Failure' ? 'RenderingFailure' : type)),
  ),
  mail: jsonObject({
    timestamp: v.string(),
    messageId: v.pipe(v.string(), v.minLength(1)),
    tags: v.optional(jsonRecord(v.string(), v.array(v.string()))),
  }),
  delivery: v.optional(jsonObject(Stamped)),
  bounce: v.optional(jsonObject({ ...Stamped, bounceType: v.optional(v.string()), bounceSubType: v.optional(v.string()) })),
  complaint: v.optional(jsonObject({ ...Stamped, complaintFeedbackType: v.optional(v.string()) })),
  deliveryDelay: v.optional(jsonObject({ ...Stamped, delayType: v.optional(v.string()) })),
  open: v.optional(jsonObject(Stamped)),
  click: v.optional(jsonObject(Stamped)),
  subscription: v.optional(jsonObject(Stamped)),
  reject: v.optional(jsonObject({ reason: v.optional(v.string()) })),
});
/** The fields of an SES event the ledger reads. */
export type SesEvent = v.InferOutput<typeof SesEventSchema>;

const KEY = /^[0-9a-f]{64}$/;
const CLAIM_VERSION = /^[1-9][0-9]{0,15}$/;

/** Event types stamped by their own sub-object; the rest (Send, Reject, RenderingFailure) by the mail's timestamp. */
const STAMP_FIELD = {
  Delivery: 'delivery',
  Bounce: 'bounce',
  Complaint: 'complaint',
  DeliveryDelay: 'deliveryDelay',
  Open: 'open',
  Click: 'click',
  Subscription: 'subscription',
} as const satisfies Record<string, keyof SesEvent>;

/**
 * One SES event as a ledger status, found by the idempotency key the sender attached as a
 * message tag. Mail without the tag is not ours (the sender tags every e-mail): it comes back
 * as `untagged-email` and is counted as unmatched, with no ledger read.
 *
 * @returns the status event, or a reason it is not one (never containing the event's content).
 */
export function statusFromSesEvent(input: unknown): StatusEvent | { readonly invalid: string } {
  const parsed = validate(SesEventSchema, input);
  if (!parsed.success) return { invalid: `not an SES event: ${describeProblems(parsed.problems, 1)}` };
  const event = parsed.output;
  if (!isKnownDeliveryStatus(event.eventType)) return { invalid: `SES event type ${safe(event.eventType)} is not recorded` };
  const field = STAMP_FIELD[event.eventType as keyof typeof STAMP_FIELD];
  const stamp = (field ? event[field]?.timestamp : undefined) ?? event.mail.timestamp;
  const at = Date.parse(stamp);
  if (Number.isNaN(at)) return { invalid: `SES ${event.eventType} event has no valid timestamp` };

  const detail = detailOf(event);
  const update: DeliveryStatusUpdate = { status: event.eventType, at, source: 'ses', ...(detail ? { detail } : {}) };
  const key = event.mail.tags?.[SES_KEY_TAG]?.[0];
  if (key && KEY.test(key)) {
    // Found by our key: the row may not know SES's id yet (its send was ambiguous); record it.
    const version = event.mail.tags?.[SES_CLAIM_VERSION_TAG]?.[0];
    const claimVersion = version !== undefined && CLAIM_VERSION.test(version) ? Number(version) : undefined;
    return {
      channel: 'email',
      ref: { kind: 'key', key },
      update: { ...update, providerMessageId: event.mail.messageId, ...(claimVersion !== undefined ? { claimVersion } : {}) },
    };
  }
  return { channel: 'email', ref: { kind: 'untagged-email', providerMessageId: event.mail.messageId }, update };
}

function detailOf(event: SesEvent): string | undefined {
  switch (event.eventType) {
    case 'Bounce':
      return (
        [event.bounce?.bounceType, event.bounce?.bounceSubType]
          .filter((part): part is string => Boolean(part))
          .map(safe)
          .join('/') || undefined
      );
    case 'Complaint':
      return event.complaint?.complaintFeedbackType ? safe(event.complaint.complaintFeedbackType) : undefined;
    case 'DeliveryDelay':
      return event.deliveryDelay?.delayType ? safe(event.deliveryDelay.delayType) : undefined;
    case 'Reject':
      return event.reject?.reason ? safe(event.reject.reason) : undefined;
    default:
      return undefined;
  }
}

/** Enumerated SES values only ever hold words; anything else is cut, so no address can slip through. */
function safe(value: string): string {
  return value.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 64);
}
