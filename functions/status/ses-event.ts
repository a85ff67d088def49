import * as v from 'valibot';
import { SES_CLAIM_VERSION_TAG, SES_KEY_TAG, SES_TOPIC_TAG } from '../adapters/ses-email-provider';
import type { DeliveryStatusUpdate } from '../core/provider/delivery-status';
import { isKnownDeliveryStatus } from '../core/provider/delivery-status';
import { jsonObject, jsonRecord } from '../core/json-objects';
import { describeProblems, validate } from '../core/schema';
import type { ConsentSignal, StatusEvent } from './status-event';

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
  complaint: v.optional(jsonObject({ ...Stamped, complaintFeedbackType: v.optional(v.string()), complaintSubType: v.optional(v.nullable(v.string())) })),
  deliveryDelay: v.optional(jsonObject({ ...Stamped, delayType: v.optional(v.string()) })),
  open: v.optional(jsonObject(Stamped)),
  click: v.optional(jsonObject(Stamped)),
  // The contact's whole new state in the contact list: only the topic names and statuses are read.
  subscription: v.optional(
    jsonObject({
      ...Stamped,
      newTopicPreferences: v.optional(
        jsonObject({
          unsubscribeAll: v.optional(v.boolean()),
          topicSubscriptionStatus: v.optional(v.array(jsonObject({ topicName: v.string(), subscriptionStatus: v.string() }))),
        }),
      ),
    }),
  ),
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
 * as `untagged` and is counted as unmatched, with no ledger read.
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
    const consent = consentOf(event);
    return {
      channel: 'email',
      ref: { kind: 'key', key },
      update: { ...update, providerMessageId: event.mail.messageId, ...(claimVersion !== undefined ? { claimVersion } : {}) },
      ...(consent ? { consent } : {}),
    };
  }
  return { channel: 'email', ref: { kind: 'untagged', providerMessageId: event.mail.messageId }, update };
}

/**
 * The bounce subtypes SES documents for a bounce event (event-publishing contents, "Bounce types") that are
 * about the recipient's mailbox or a suppression list, not about the contact list.
 */
const MAILBOX_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set(['Undetermined', 'General', 'NoEmail', 'Suppressed', 'OnAccountSuppressionList']);

/**
 * What an SES event of a bulk e-mail (tagged with its topic) says about consent:
 * - `Subscription`: the contact's new preferences in the list (SES's own record of an unsubscribe through the
 *   one-click header or the landing page, or of re-subscribing there);
 * - `Bounce`: SES documents that it "will bounce an email if it is sent to an unsubscribed contact on your
 *   contact list" (list management guide) but names no bounce subtype for it. A `Permanent` bounce of a
 *   list-managed e-mail whose subtype is none of the documented mailbox and suppression-list subtypes is read as
 *   that bounce: the contact is recorded unsubscribed from the e-mail's topic. Erring this way stops marketing to
 *   an address that may still take it; the other way would send marketing to someone who unsubscribed.
 */
function consentOf(event: SesEvent): ConsentSignal | undefined {
  const topic = event.mail.tags?.[SES_TOPIC_TAG]?.[0];
  if (!topic) return undefined;
  if (event.eventType === 'Subscription') {
    const preferences = event.subscription?.newTopicPreferences;
    if (!preferences) return undefined;
    const topicsOut = (preferences.topicSubscriptionStatus ?? []).filter((t) => t.subscriptionStatus === 'OptOut').map((t) => safe(t.topicName));
    return { kind: 'preferences', all: preferences.unsubscribeAll === true, topicsOut };
  }
  if (event.eventType === 'Bounce' && event.bounce?.bounceType === 'Permanent' && !MAILBOX_BOUNCE_SUBTYPES.has(event.bounce.bounceSubType ?? 'General')) {
    return { kind: 'refused', reason: 'Unsubscribed', topic: safe(topic) };
  }
  return undefined;
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
      // SES's own complaint for an address on its suppression list names that subtype, and no feedback type: the
      // mail was never sent (COMPLAINT_ON_SUPPRESSION_LIST).
      if (event.complaint?.complaintSubType) return safe(event.complaint.complaintSubType);
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
