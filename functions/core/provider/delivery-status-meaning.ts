/**
 * Which of the three facts a status tells of the message, read from its `fallback` column (and a bounce's detail),
 * never from a list of its own: `delivered`; `certainly-undelivered` (a hard failure, or a content or rule block:
 * either way the message did not arrive); or `possibly-delivered` (it may have arrived, or may yet).
 */
export type DeliveryFact = 'certainly-undelivered' | 'possibly-delivered' | 'delivered';

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

/**
 * What a producer hears of a status recorded on a row whose message went or may have gone (`SENT`, `UNKNOWN`):
 * the provider's word on what became of a message it accepted (outcome-state.ts turns it into the row's visible
 * state), or `nothing` when the status says nothing a producer acts on and leaves the row's state as it is.
 * - `DELIVERED`: the mailbox or handset took it; an open or a click proves the same;
 * - `DELIVERED` also for a subscription change made through the message's link, and for End User Messaging's
 *   `TEXT_SUCCESSFUL` (its page: "Depending on the destination country the TEXT_DELIVERED and TEXT_SUCCESSFUL
 *   events may be used interchangeably": where no handset receipt comes, the carrier's acceptance is the last word);
 * - `BOUNCED`: the provider or carrier says it could not be delivered, or refused a message it had accepted (SES
 *   `Reject`, `RenderingFailure`; End User Messaging's `TEXT_INVALID`, ...). A `BOUNCED` is one of two facts,
 *   certainly undelivered or possibly delivered (SNS `FAILURE`, `TEXT_UNKNOWN`, an SES bounce that may be an out-of-office reply): the event's
 *   `delivery` says which (statusDeliveryFact, from the `fallback` column below);
 * - `COMPLAINED`: the recipient marked it as spam.
 * A `BOUNCED` that is not the provider's final word (an End User Messaging event not marked `isFinal`: the row's
 * `deliveryStatusIntermediate`) is no outcome yet: the carrier may still deliver, and the final event is the one a
 * producer hears of (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html).
 */
export type StatusOutcome = 'DELIVERED' | 'BOUNCED' | 'COMPLAINED' | 'nothing';

/**
 * What a status means for a fallback (primary-verdict.ts), the three facts kept apart:
 * - `delivered`: it proves the message reached the recipient (or the recipient acted on it), on any row;
 * - `hard-failure`: as the provider's final word on the only attempt that may have gone, the message certainly did
 *   not and will not arrive on this channel, and the recipient (or their address) is why: the next channel is the
 *   way to reach them;
 * - `bounce-by-subtype`: an SES bounce, read by its detail (`<type>/<subtype>`, statusForFallback): a `hard-failure`,
 *   a `content-or-rule-block` or `nothing`;
 * - `content-or-rule-block`: as that final word, the message did not arrive, for its content or by a rule, which a
 *   fallback must not dodge (the next channel carries the same content, or would go round the rule): kept from
 *   fallback. It says the message did not arrive, so it may never read as "possibly delivered" (which would let a
 *   class's no-evidence window send the fallback anyway). An AWS-docs review found these read that way.
 * - `nothing`: it may have arrived (or is not yet the provider's last word): possibly delivered.
 *
 * Only a final event counts (primary-verdict.ts checks `deliveryStatusIntermediate`): End User Messaging marks each
 * event `isFinal`, and "There are intermediate message statuses" before the final one, up to 72 hours later
 * (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html). An intermediate
 * failure type is the carrier still trying: possibly delivered, so the row waits for the final word (and an `otp`
 * primary falls back only by its class's window without evidence).
 */
export type StatusForFallback = 'delivered' | 'hard-failure' | 'bounce-by-subtype' | 'content-or-rule-block' | 'nothing';

/**
 * One status value's whole meaning: what it proves, its stage in a message's life (the tie-break between two
 * events with one time), what a producer hears of it, and what it means for a fallback.
 */
export interface StatusMeaning {
  readonly proves: StatusProof;
  readonly rank: number;
  readonly outcome: StatusOutcome;
  readonly fallback: StatusForFallback;
}

/**
 * Every status the ledger records, and nothing else (an unknown value is counted and never guessed at), with all it
 * means: test/core/provider/status-meaning-coherence.test.ts holds the columns to each other.
 *
 * SES ("Amazon SES event types" in the SES developer guide): `Send` is a request SES accepted and will attempt to
 * deliver, while `Reject` (a virus found, no delivery attempted) and `RenderingFailure` are its refusals, all three
 * stamped with the mail's own time, so the rank lets the refusal win a tie. Every other event follows an attempt to
 * deliver. SNS SMS delivery logs: `SUCCESS` and `FAILURE` both follow SNS handing the text to a carrier.
 *
 * End User Messaging SMS: each `TEXT_*` type of "Event types for SMS, MMS, and voice"
 * (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-types.html), read as the
 * page defines it (each row says how). That the carrier's and the handset's answers come after the hand-off is our
 * reading of the wording (a carrier's or a device's answer), not a sentence of the page.
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
  // SES accepted the request: says nothing a producer acts on, nor that the mail arrived.
  'Send': { proves: 'accepted', rank: 1, outcome: 'nothing', fallback: 'nothing' },
  // Still trying: a delay says nothing new, and the mail may yet arrive.
  'DeliveryDelay': { proves: 'sent', rank: 2, outcome: 'nothing', fallback: 'nothing' },
  'Delivery': { proves: 'sent', rank: 3, outcome: 'DELIVERED', fallback: 'delivered' },
  // Read by type and subtype (statusForFallback). SES publishes a bounce once it has given up on the mail ("Soft
  // bounces are only included when SES fails to deliver the email after retrying for a period of time", SES API v2
  // EventDestination, https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_EventDestination.html), so a
  // `Permanent` one and a transient `MailboxFull` one ("can't accept any more emails") say this mail did not arrive,
  // and a transient bounce of the message itself (`MessageTooLarge`, `ContentRejected`, `AttachmentRejected`) says so
  // for its content. But a transient `General` bounce "typically happens when the recipient has set up an 'out of
  // the office' automatic reply" (AWS's knowledge-center article on soft bounces,
  // https://repost.aws/knowledge-center/ses-understand-soft-bounces): the mail arrived. That and an `Undetermined`
  // one stay possibly delivered.
  'Bounce': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'bounce-by-subtype' },
  // REJECT: "SES accepted the email, but determined that it contained a virus and didn't attempt to deliver it to
  // the recipient's mail server" (SES API v2 EventDestination, `MatchingEventTypes`,
  // https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_EventDestination.html). Its content is the cause, which
  // the next channel carries too: kept from fallback. A final refusal of a mail SES had accepted, certainly
  // undelivered, so a producer hears of it as BOUNCED, as of TEXT_INVALID_MESSAGE (before 2026-12-06 it heard nothing:
  // the row stayed SENT).
  'Reject': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // RENDERING_FAILURE: "The email wasn't sent because of a template rendering issue" (same page): our template, which
  // the next channel shares; certainly undelivered, heard as BOUNCED for the reason Reject is.
  'RenderingFailure': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // The recipient marked it as spam: it reached them. Unless SES raised it itself for an address on the account's
  // suppression list (its subtype, COMPLAINT_ON_SUPPRESSION_LIST): then it was never sent (statusForFallback).
  'Complaint': { proves: 'sent', rank: 5, outcome: 'COMPLAINED', fallback: 'delivered' },
  // SUBSCRIPTION: "The email was successfully delivered, but the recipient updated their subscription preferences by
  // clicking on an unsubscribe link" (same page): it reached them, as an open or a click proves, so a producer hears
  // DELIVERED (before 2026-12-06 nothing: PROVIDER_OUTCOME never listed it, and no comment said why). The new
  // preferences go to the contact's consent record (functions/status/consent-signal.ts), for later messages; this
  // message's row stays SENT (only a refusal after acceptance turns it SUPPRESSED), so DELIVERED is what it became.
  'Subscription': { proves: 'sent', rank: 5, outcome: 'DELIVERED', fallback: 'delivered' },
  // An open or a click proves the delivery.
  'Open': { proves: 'sent', rank: 6, outcome: 'DELIVERED', fallback: 'delivered' },
  'Click': { proves: 'sent', rank: 7, outcome: 'DELIVERED', fallback: 'delivered' },
  // SNS SMS delivery logs
  'SUCCESS': { proves: 'sent', rank: 3, outcome: 'DELIVERED', fallback: 'delivered' },
  // The provider says it could not be delivered, but never certainly: AWS's own example reads "Unknown error
  // attempting to reach phone", as uncertain as `TEXT_UNKNOWN`.
  'FAILURE': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'nothing' },
  // End User Messaging SMS: AWS queues, hands off, then the carrier answers.
  // TEXT_QUEUED "queued for delivery, but not delivered yet", TEXT_PENDING "in the process of being delivered":
  // accepted, not yet handed off.
  'TEXT_QUEUED': { proves: 'accepted', rank: 1, outcome: 'nothing', fallback: 'nothing' },
  'TEXT_PENDING': { proves: 'accepted', rank: 2, outcome: 'nothing', fallback: 'nothing' },
  // TEXT_SUCCESSFUL "accepted by the recipient's carrier", TEXT_DELIVERED ("Depending on the destination country" the two "may be used interchangeably"):
  // handed off, and delivered: both DELIVERED to a producer (before 2026-12-06 TEXT_SUCCESSFUL was no outcome:
  // PROVIDER_OUTCOME never listed it, and no comment said why, while a fallback read it as delivered).
  'TEXT_SUCCESSFUL': { proves: 'sent', rank: 3, outcome: 'DELIVERED', fallback: 'delivered' },
  'TEXT_DELIVERED': { proves: 'sent', rank: 3, outcome: 'DELIVERED', fallback: 'delivered' },
  // The carrier's or the handset's answers, so after the hand-off; sending again would be a second text.
  // "the recipient's device or carrier is blocking messages to that recipient": the recipient is why; certainly
  // undelivered when final, a final refusal a producer hears of (before it was BOUNCED, the write recording one on
  // a SENT row was no outcome, so neither the producer nor the fallback trigger heard of it).
  'TEXT_BLOCKED': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'hard-failure' },
  // "the recipient's carrier blocks the delivery", "typically ... when the carrier identifies the message as
  // malicious ... or abusive": the content, as TEXT_SPAM, which the next channel carries too.
  'TEXT_CARRIER_BLOCKED': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // "the recipient's carrier identifies the message as containing unsolicited commercial content": the content.
  'TEXT_SPAM': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // "the recipient's device is unavailable": certainly undelivered when final.
  'TEXT_UNREACHABLE': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'hard-failure' },
  // "a transient error occurs on the carrier network of the message recipient" (all the page says): may still arrive.
  'TEXT_CARRIER_UNREACHABLE': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'nothing' },
  // "fails to be delivered for a reason that isn't covered by one of the other event types. Unknown errors can be
  // temporary or permanent": the page does not say whether the hand-off happened. Read as sent (never sent again)
  // because "Messaging Events" says the service reports an UNKNOWN messageStatus when it "has not received a final
  // event from a carrier" within 72 hours: an inference, chosen so that a doubt never texts twice. Never certain.
  // When final, the provider's last word is that it failed to be delivered, as uncertain as SNS's FAILURE, so a
  // producer hears the same: BOUNCED, with `delivery: possibly-delivered` (statusDeliveryFact). Before 2026-12-06 it
  // was no outcome, so a text that ended TEXT_UNKNOWN stayed SENT for ever while one that ended FAILURE was BOUNCED.
  'TEXT_UNKNOWN': { proves: 'sent', rank: 4, outcome: 'BOUNCED', fallback: 'nothing' },
  // Refused before any hand-off. The number: a final refusal of a text AWS had accepted, certainly undelivered
  // (a producer hears of it, for the reason TEXT_BLOCKED says).
  'TEXT_INVALID': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'hard-failure' },
  // The body: a block a fallback must not dodge (the next channel carries it) but a producer must hear of.
  'TEXT_INVALID_MESSAGE': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // "blocked by protect configuration", AWS's own destination filter: a fallback would dodge it; a producer hears of it.
  'TEXT_PROTECT_BLOCKED': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'content-or-rule-block' },
  // SendTextMessage's `TimeToLive`: a text not handed off before it ran out is no longer tried. Certainly
  // undelivered when final, and a producer hears of it (as TEXT_BLOCKED says).
  'TEXT_TTL_EXPIRED': { proves: 'not-sent', rank: 4, outcome: 'BOUNCED', fallback: 'hard-failure' },
};

/** The meaning of a status the ledger knows; undefined for any other value (an own key only, never `constructor`). */
function meaningOf(status: string): StatusMeaning | undefined {
  return Object.hasOwn(STATUS_MEANINGS, status) ? STATUS_MEANINGS[status] : undefined;
}

/** What a status proves; `nothing` for a value the ledger does not know. */
export function statusProof(status: string): StatusProof {
  return meaningOf(status)?.proves ?? 'nothing';
}

/** What a producer hears of a status (StatusOutcome); `nothing` for a value the ledger does not know. */
export function statusOutcome(status: string): StatusOutcome {
  return meaningOf(status)?.outcome ?? 'nothing';
}

/**
 * What a status with its `detail` means for a fallback (StatusForFallback), a bounce's detail (`<type>/<subtype>`)
 * weighed: a `hard-failure` for a `Permanent` bounce and a transient `MailboxFull` one, a `content-or-rule-block` for a
 * transient bounce of the message itself ({@link MESSAGE_BOUNCE_SUBTYPES}), `nothing` for any other (a transient
 * `General` one may be an out-of-office reply, an `Undetermined` one says nothing; the `Bounce` row says why).
 * `nothing` for a value the ledger does not know. Whether the status is the final word on the only attempt is the
 * caller's to check.
 */
export function statusForFallback(status: string, detail: string | undefined): Exclude<StatusForFallback, 'bounce-by-subtype'> {
  if (status === 'Complaint' && detail === COMPLAINT_ON_SUPPRESSION_LIST) return 'hard-failure';
  const fallback = meaningOf(status)?.fallback ?? 'nothing';
  if (fallback !== 'bounce-by-subtype') return fallback;
  const [type, subtype] = (detail ?? '').split('/');
  if (type === 'Permanent') return 'hard-failure';
  if (type !== 'Transient' || subtype === undefined) return 'nothing';
  if (subtype === 'MailboxFull') return 'hard-failure';
  return MESSAGE_BOUNCE_SUBTYPES.has(subtype) ? 'content-or-rule-block' : 'nothing';
}

/**
 * The SES bounce an out-of-office reply arrives as: a transient `General` bounce "typically happens when the recipient
 * has set up an 'out of the office' automatic reply" (https://repost.aws/knowledge-center/ses-understand-soft-bounces).
 * Typically, not always: after a `Delivery` a proof of delivery stands against it, a trade the fallback docs state.
 */
export const AUTO_REPLY_BOUNCE = 'Transient/General';

/**
 * Whether a final status with its `detail`, recorded after a proof of delivery, takes that proof back: a certain
 * failure (`hard-failure`, `content-or-rule-block`, as statusForFallback reads it), or a bounce read by its subtype
 * that is not the out-of-office kind ({@link AUTO_REPLY_BOUNCE}): an `Undetermined` one may be the receiving server's
 * asynchronous bounce. Any other status (a delivery, an earlier stage, an uncertain word of another attempt) does not.
 */
export function takesBackDelivery(status: string, detail: string | undefined): boolean {
  const meaning = statusForFallback(status, detail);
  if (meaning === 'hard-failure' || meaning === 'content-or-rule-block') return true;
  return meaningOf(status)?.fallback === 'bounce-by-subtype' && detail !== AUTO_REPLY_BOUNCE;
}

/**
 * The `complaintSubType` of an SES `Complaint` event that SES raised itself, for an address on the account's
 * suppression list after an earlier complaint: "SES accepted the message, but didn't attempt to send it because it
 * was on the account-level suppression list" (SES API v2 `Complaint`,
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_Complaint.html). Such a complaint proves no delivery:
 * the mail certainly did not arrive, read as the `Bounce` `Permanent/OnAccountSuppressionList` SES raises for an
 * address suppressed after a bounce. The status Lambda records it as the complaint's detail (functions/status/ses-event.ts).
 */
export const COMPLAINT_ON_SUPPRESSION_LIST = 'OnAccountSuppressionList';

/**
 * SES's transient bounce subtypes that are the message's, not the mailbox's: "MessageTooLarge", "ContentRejected",
 * "AttachmentRejected" ("Bounce types" in the SES developer guide; AWS's knowledge-center article on soft bounces
 * lists them with `General` and `MailboxFull`, https://repost.aws/knowledge-center/ses-understand-soft-bounces). The
 * next channel carries the same content, so these are kept from fallback.
 */
export const MESSAGE_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set(['MessageTooLarge', 'ContentRejected', 'AttachmentRejected']);

/**
 * The fact a status with its `detail` tells (DeliveryFact), as the final word on the only attempt that may have gone:
 * whether it is that is the caller's to check, as for statusForFallback. `possibly-delivered` for a value the ledger
 * does not know.
 */
export function statusDeliveryFact(status: string, detail: string | undefined): DeliveryFact {
  switch (statusForFallback(status, detail)) {
    case 'delivered':
      return 'delivered';
    case 'hard-failure':
    case 'content-or-rule-block':
      return 'certainly-undelivered';
    case 'nothing':
      return 'possibly-delivered';
  }
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

/**
 * Whether one recorded event proves the message reached the recipient, for good (the row's `deliveryProvenBy`): a
 * status whose `fallback` column in STATUS_MEANINGS is `delivered` (SES `Delivery`, `Complaint`, `Subscription`,
 * `Open`, `Click`; SNS `SUCCESS`; End User Messaging's `TEXT_SUCCESSFUL` and `TEXT_DELIVERED`), read from the table,
 * never from a list of its own, its `detail` weighed as statusForFallback weighs it (a `Complaint` SES raised for an
 * address on its suppression list proves none), and only as the provider's final word: an intermediate End User
 * Messaging event is not (the same page as eventProof).
 */
export function eventProvesDelivery(status: string, { intermediate = false, detail }: { readonly intermediate?: boolean; readonly detail?: string } = {}): boolean {
  return !intermediate && statusForFallback(status, detail) === 'delivered';
}
