import type { LedgerRow } from '../ledger/ledger-record';
import { standingDeliveryProof } from '../provider/delivery-proof';
import { statusForFallback } from '../provider/delivery-status-meaning';

/**
 * What a row says of its message, for a fallback (the three facts, kept apart):
 * - `certainly-undelivered`: it did not and will not reach the recipient on this channel, and the recipient (or
 *   their address) is why: the next channel is the way to reach them;
 * - `possibly-delivered`: it went, or may have gone, and no provider word says it arrived or failed;
 * - `delivered`: the provider says it arrived (or the recipient acted on it);
 * - `kept-from-fallback`: not delivered, but by a rule a fallback must not dodge (a limit, a destination rule) or by
 *   our own fault that the next channel shares (the template, the lifetime, the settle bound, the content);
 * - `pending`: not settled yet (its settling write is a change of its own, which is decided then).
 */
export type PrimaryVerdict =
  | { readonly kind: 'certainly-undelivered'; readonly cause: UndeliveredCause; readonly reason: string }
  | { readonly kind: 'possibly-delivered'; readonly sentAtMs: number }
  | { readonly kind: 'delivered'; readonly status: string }
  | { readonly kind: 'kept-from-fallback'; readonly reason: string }
  | { readonly kind: 'pending' };

/** Why a message certainly did not arrive: a permanent refusal, a hard failure after hand-off, or the recipient's stop on this channel. */
export type UndeliveredCause = 'refused' | 'hard-failure' | 'consent';

/** The fields of a row a verdict reads. */
export type VerdictRow = Pick<
  LedgerRow,
  | 'state'
  | 'failureReason'
  | 'suppressionReason'
  | 'deliveryStatus'
  | 'deliveryStatusDetail'
  | 'deliveryStatusIntermediate'
  | 'deliveryProvenBy'
  | 'lastAmbiguousAt'
  | 'resolvedAt'
  | 'updatedAt'
>;

/**
 * The refusals of a FAILED row that are the recipient's address, by the error's documented name (the reason starts
 * with it, provider-outcome.ts): `InvalidAddress` is our own check at the door (no or a malformed address);
 * `EndpointDisabledException` and `NotFoundException` are SNS's answers for a disabled or deleted push endpoint (SES
 * answers `NotFoundException` only for our own setup, which is never FAILED). End User Messaging's invalid number
 * comes as its `TEXT_INVALID` event (a hard failure below); its `ValidationException` does not say in the reason we
 * keep whether the number or the body was refused, so it stays out. Any other
 * FAILED reason is ours or the content's (a template, a body a provider refuses, a lifetime or a bound), which the
 * next channel would share or must not dodge.
 */
const RECIPIENT_REFUSALS: readonly RegExp[] = [
  /^InvalidAddress:/,
  /^EndpointDisabledException:/,
  /^NotFoundException:/,
  // SNS's InvalidParameter names the parameter it refused: the number or the endpoint, not the message.
  /^InvalidParameter(?:Value)?Exception: Invalid parameter: (?:PhoneNumber|TargetArn)/,
];

/**
 * The FAILED reasons that are the recipient's stop on this channel: a code or an order update refused because the
 * number opted out (SNS `OptedOutException`; End User Messaging's `DESTINATION_PHONE_NUMBER_OPTED_OUT`, labelled
 * `OptedOut:`). A bulk message is SUPPRESSED for it instead (settle-answer.ts).
 */
const CONSENT_REFUSALS: readonly RegExp[] = [/^OptedOutException:/, /^OptedOut:/];

/** Suppressions that are the recipient's stop on this channel (consent.ts); a limit or a destination rule never is. */
const CONSENT_SUPPRESSIONS: ReadonlySet<string> = new Set(['Unsubscribed', 'OptedOut']);

/**
 * The verdict on `row`. Pure.
 *
 * What a provider status means for a fallback is its row of STATUS_MEANINGS (provider/delivery-status-meaning.ts,
 * where each row cites AWS's page for its reading): delivered, a hard failure (an SES `Bounce` when
 * `Permanent` or of a full mailbox), a content or rule block kept from fallback (an SES bounce of the message itself
 * too), or nothing. Left out of the hard failures on purpose:
 * SNS's SMS delivery log `FAILURE`, `TEXT_CARRIER_UNREACHABLE` and `TEXT_UNKNOWN` (uncertain); `TEXT_CARRIER_BLOCKED`,
 * `TEXT_SPAM`, `TEXT_INVALID_MESSAGE` and SES `Reject` (the content, which the next channel carries too);
 * `TEXT_PROTECT_BLOCKED` (AWS's own destination filter: a fallback would dodge it); SES `RenderingFailure` (our
 * template). https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-types.html
 *
 * A hard failure or a block counts only as the final word on the only attempt (`deliveryStatusIntermediate` not
 * set, no `lastAmbiguousAt`): End User Messaging marks each event `isFinal`, and "There are intermediate message
 * statuses" before the final one, up to 72 hours later
 * (https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-event-format.html). An intermediate
 * failure type is the carrier still trying: possibly delivered, so the row waits for the final word (and an `otp`
 * primary falls back only by its class's window without evidence).
 *
 * A provider's proof of delivery is kept on the row for good (`deliveryProvenBy`) and outlives a later uncertain word
 * that replaced the status: an SES `Delivery` and then a `Transient/General` bounce (an out-of-office reply) is
 * delivered, never "possibly delivered" (until 2026-12-06 it was, and an `otp` e-mail fell back to a text after its
 * window). A certain final word (a hard failure, a content or rule block) lifts the proof (delivery-proof.ts): on the
 * only attempt it decides as it always did (an asynchronous `Permanent` bounce after a `Delivery` falls back); after an
 * attempt whose outcome is unknown it is possibly delivered. On a FAILED or SUPPRESSED row the proof decides too: the
 * refusal or the stop is of a resend, and an earlier attempt reached the recipient, so nothing is to be sent again on
 * the next channel (a fallback would be a second message) and a producer must not be told it did not arrive.
 */
export function primaryVerdict(row: VerdictRow): PrimaryVerdict {
  const status = row.deliveryStatus;
  const meaning = status === undefined ? 'nothing' : statusForFallback(status, row.deliveryStatusDetail);
  if (status !== undefined && meaning === 'delivered') return { kind: 'delivered', status };
  const proof = standingDeliveryProof(row);
  if (proof !== undefined) return { kind: 'delivered', status: proof };
  switch (row.state) {
    case 'PENDING':
      return { kind: 'pending' };
    case 'FAILED': {
      const reason = row.failureReason ?? 'FAILED';
      if (CONSENT_REFUSALS.some((rule) => rule.test(reason))) return unlessEarlierMayHaveGone(row, { kind: 'certainly-undelivered', cause: 'consent', reason });
      return RECIPIENT_REFUSALS.some((rule) => rule.test(reason))
        ? unlessEarlierMayHaveGone(row, { kind: 'certainly-undelivered', cause: 'refused', reason })
        : { kind: 'kept-from-fallback', reason };
    }
    case 'SUPPRESSED': {
      const reason = row.suppressionReason ?? 'SUPPRESSED';
      return CONSENT_SUPPRESSIONS.has(reason) ? unlessEarlierMayHaveGone(row, { kind: 'certainly-undelivered', cause: 'consent', reason }) : { kind: 'kept-from-fallback', reason };
    }
    case 'SENT':
    case 'UNKNOWN': {
      // A hard failure or a block names one attempt; an earlier attempt whose outcome is unknown may still have
      // arrived. An intermediate one is not the provider's last word.
      const finalWordOnOnlyAttempt = status !== undefined && row.deliveryStatusIntermediate !== true && row.lastAmbiguousAt === undefined;
      if (finalWordOnOnlyAttempt) {
        const reason = row.deliveryStatusDetail ? `${status}: ${row.deliveryStatusDetail}` : status;
        if (meaning === 'hard-failure') return { kind: 'certainly-undelivered', cause: 'hard-failure', reason };
        if (meaning === 'content-or-rule-block') return { kind: 'kept-from-fallback', reason };
      }
      return possiblyDelivered(row);
    }
  }
}

function possiblyDelivered(row: VerdictRow): PrimaryVerdict {
  return { kind: 'possibly-delivered', sentAtMs: row.resolvedAt ?? row.updatedAt };
}

/**
 * A refusal or a stop names the attempt that met it; an earlier attempt whose outcome is unknown (`lastAmbiguousAt`)
 * may still have arrived, so the row is possibly delivered, as for a hard failure. The interleaving model found it: an
 * otp text accepted with its answer lost, resent at once and refused, fell back at once as if certain.
 */
function unlessEarlierMayHaveGone(row: VerdictRow, certain: PrimaryVerdict): PrimaryVerdict {
  return row.lastAmbiguousAt === undefined ? certain : possiblyDelivered(row);
}
