/**
 * What one delivery-status value proves about the attempt it names:
 * - `sent`: the provider handed the message on (a mail server or a carrier had it). Proof of a send for good:
 *   nothing said later, about this attempt or another, takes it back, and one sent message is enough.
 * - `accepted`: the provider took the request and will hand it on or drop it. Read as a send while it is the
 *   row's latest word, since sending again would most likely be a second message; but a later event of the
 *   same attempt may still prove it dropped (End User Messaging's TEXT_TTL_EXPIRED after TEXT_QUEUED).
 * - `not-sent`: the provider refused the attempt before any hand-off: proof for that attempt only.
 * - `nothing`: says neither.
 */
export type StatusProof = 'sent' | 'accepted' | 'not-sent' | 'nothing';

/** One status value: what it proves, and its stage in a message's life (the tie-break between two events with one time). */
export interface StatusMeaning {
  readonly proves: StatusProof;
  readonly rank: number;
}

/**
 * Every status the ledger records, and nothing else (an unknown value is counted and never guessed at).
 *
 * SES ("Amazon SES event types" in the SES developer guide): `Send` is a request SES accepted and will attempt to
 * deliver, while `Reject` (a virus found, no delivery attempted) and `RenderingFailure` are its refusals, all three
 * stamped with the mail's own time, so the rank lets the refusal win a tie. Every other event follows an attempt to
 * deliver. SNS SMS delivery logs: `SUCCESS` and `FAILURE` both follow SNS handing the text to a carrier.
 *
 * End User Messaging SMS: each `TEXT_*` type of "Event types for SMS, MMS, and voice"
 * (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-types.html), read as the
 * page defines it:
 * - TEXT_SUCCESSFUL "accepted by the recipient's carrier", TEXT_DELIVERED (the two "may be used interchangeably"):
 *   handed off.
 * - TEXT_BLOCKED "the recipient's device or carrier is blocking messages to that recipient", TEXT_CARRIER_BLOCKED
 *   "the recipient's carrier blocks the delivery", TEXT_SPAM "the recipient's carrier identifies the message as
 *   containing unsolicited commercial content", TEXT_UNREACHABLE "the recipient's device is unavailable",
 *   TEXT_CARRIER_UNREACHABLE "a transient error occurs on the carrier network of the message recipient": each is
 *   the carrier's or the handset's answer, so after the hand-off; sending again would be a second text. That these
 *   come after the hand-off is our reading of the wording (a carrier's or a device's answer), not a sentence of the
 *   page; for TEXT_CARRIER_UNREACHABLE the page says only "transient error ... on the carrier network".
 * - TEXT_UNKNOWN "fails to be delivered for a reason that isn't covered by one of the other event types. Unknown
 *   errors can be temporary or permanent": the page does not say whether the hand-off happened. Read as sent (never
 *   sent again) because "Messaging Events" says the service reports an UNKNOWN messageStatus when it "has not
 *   received a final event from a carrier" within 72 hours: an inference, chosen so that a doubt never texts twice.
 * - TEXT_QUEUED "queued for delivery, but not delivered yet", TEXT_PENDING "in the process of being delivered":
 *   accepted, not yet handed off.
 * - TEXT_INVALID (the number), TEXT_INVALID_MESSAGE (the body), TEXT_PROTECT_BLOCKED ("blocked by protect
 *   configuration", AWS's own filter), TEXT_TTL_EXPIRED (SendTextMessage's `TimeToLive`: a text not handed off
 *   before it ran out is no longer tried): refused before any hand-off.
 *
 * Two `TEXT_` names of the SDK that are not here, on purpose (test/status/eum-event-table.test.ts holds the SDK's
 * list against this table): `TEXT_SENT`, an `EventType` the SDK itself documents as "not supported" for an event
 * destination's `MatchingEventTypes`, and absent from the page; and `TEXT_MESSAGE_MONTHLY_SPEND_LIMIT`, which is a
 * `SpendLimitName` (the account's monthly spend limit), not an event at all. An event claiming either type is
 * counted as invalid, never recorded.
 */
// Quoted: each is a provider's word, as it arrives (and as the docs name it).
export const STATUS_MEANINGS: Readonly<Record<string, StatusMeaning>> = {
  // SES
  'Send': { proves: 'accepted', rank: 1 },
  'DeliveryDelay': { proves: 'sent', rank: 2 },
  'Delivery': { proves: 'sent', rank: 3 },
  'Bounce': { proves: 'sent', rank: 4 },
  'Reject': { proves: 'not-sent', rank: 4 },
  'RenderingFailure': { proves: 'not-sent', rank: 4 },
  'Complaint': { proves: 'sent', rank: 5 },
  'Subscription': { proves: 'sent', rank: 5 },
  'Open': { proves: 'sent', rank: 6 },
  'Click': { proves: 'sent', rank: 7 },
  // SNS SMS delivery logs
  'SUCCESS': { proves: 'sent', rank: 3 },
  'FAILURE': { proves: 'sent', rank: 4 },
  // End User Messaging SMS: AWS queues, hands off, then the carrier answers.
  'TEXT_QUEUED': { proves: 'accepted', rank: 1 },
  'TEXT_PENDING': { proves: 'accepted', rank: 2 },
  'TEXT_SUCCESSFUL': { proves: 'sent', rank: 3 },
  'TEXT_DELIVERED': { proves: 'sent', rank: 3 },
  'TEXT_BLOCKED': { proves: 'sent', rank: 4 },
  'TEXT_CARRIER_BLOCKED': { proves: 'sent', rank: 4 },
  'TEXT_SPAM': { proves: 'sent', rank: 4 },
  'TEXT_UNREACHABLE': { proves: 'sent', rank: 4 },
  'TEXT_CARRIER_UNREACHABLE': { proves: 'sent', rank: 4 },
  'TEXT_UNKNOWN': { proves: 'sent', rank: 4 },
  'TEXT_INVALID': { proves: 'not-sent', rank: 4 },
  'TEXT_INVALID_MESSAGE': { proves: 'not-sent', rank: 4 },
  'TEXT_PROTECT_BLOCKED': { proves: 'not-sent', rank: 4 },
  'TEXT_TTL_EXPIRED': { proves: 'not-sent', rank: 4 },
};

/** What a status proves; `nothing` for a value the ledger does not know. */
export function statusProof(status: string): StatusProof {
  return Object.hasOwn(STATUS_MEANINGS, status) ? STATUS_MEANINGS[status]!.proves : 'nothing';
}

/**
 * What one recorded event proves, its finality weighed: an intermediate End User Messaging event ("isFinal": not
 * `true`; "There are intermediate message statuses" and the final one may take up to 72 hours, "Example SMS event
 * data", https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html) of a refusal
 * type (`TEXT_INVALID`, `TEXT_TTL_EXPIRED`, ...) proves only that AWS has the text and its final word is still to
 * come: `accepted`, never `not-sent`. A hand-off an intermediate carrier answer shows stays `sent` (the carrier had
 * the text); whether the text certainly failed is primary-verdict.ts's, which likewise waits for a final event.
 */
export function eventProof(status: string, { intermediate = false }: { readonly intermediate?: boolean } = {}): StatusProof {
  const proves = statusProof(status);
  return intermediate && proves === 'not-sent' ? 'accepted' : proves;
}
