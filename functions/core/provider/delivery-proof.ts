import type { LedgerRow } from '../ledger/ledger-record';
import { takesBackDelivery } from './delivery-status-meaning';

/** The fields of a row the proof of delivery is weighed on. */
export type DeliveryProofFields = Pick<LedgerRow, 'deliveryProvenBy' | 'deliveryStatus' | 'deliveryStatusDetail' | 'deliveryStatusIntermediate'>;

/**
 * The status that proved `row`'s message delivered (`deliveryProvenBy`), if that proof still stands; undefined when
 * the row has none, or when its latest status is the provider's final word that the message did not arrive (a
 * `hard-failure` or a `content-or-rule-block` in STATUS_MEANINGS). Pure. primary-verdict.ts and outcome-state.ts
 * both read it, so a fallback and a producer never tell two facts of one row.
 *
 * SES can say both of one mail: "SES successfully delivered the email to the recipient's mail server" (`Delivery`),
 * and later a bounce, published once SES has given up ("Soft bounces are only included when SES fails to deliver the
 * email after retrying for a period of time"; SES API v2 EventDestination, `MatchingEventTypes`,
 * https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_EventDestination.html). A bounce after a delivery is then
 * one of two things. An asynchronous bounce: "the receiving mail server might accept the email (triggering a delivery
 * notification), but after processing the email, the receiving mail server might determine that the email actually
 * results in a bounce" ("Amazon SNS notification contents for Amazon SES",
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html); a `Permanent` type (or a full mailbox, or a
 * bounce of the content) says so for certain, and outweighs the proof. A `Transient/General` one is typically an
 * out-of-office reply (STATUS_MEANINGS' `Bounce` row cites AWS on it): the proof stands against it. An `Undetermined`
 * one, of which AWS says only that SES could not classify it, may be the asynchronous bounce: it lifts the proof, and
 * the message is possibly delivered. An intermediate failure (End User Messaging, not `isFinal`) is not the provider's
 * last word, so the proof stands against it too.
 *
 * Whether a certain failure is about the only attempt is the caller's to weigh (primary-verdict.ts): here a certain
 * final word always lifts the proof, so an earlier attempt's delivery and a later attempt's hard failure are never
 * read as delivered (the row cannot say which attempt each word was about; possibly delivered is the fact).
 */
export function standingDeliveryProof(row: DeliveryProofFields): string | undefined {
  const proof = row.deliveryProvenBy;
  if (proof === undefined) return undefined;
  const status = row.deliveryStatus;
  if (status === undefined || row.deliveryStatusIntermediate === true) return proof;
  return takesBackDelivery(status, row.deliveryStatusDetail) ? undefined : proof;
}
