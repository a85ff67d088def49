import type { LedgerRow } from '../ledger/ledger-record';
import type { DeliveryEvidence } from '../policy/message-class';

/**
 * Delivery-status values (SES event types, SNS SMS statuses) that prove the provider
 * accepted the message for delivery. A bounce, a complaint or an SMS `FAILURE` still
 * prove the provider acted on our call: sending again would be a second message.
 */
const PROVES_SENT = new Set([
  'Send',
  'Delivery',
  'DeliveryDelay',
  'Bounce',
  'Complaint',
  'Open',
  'Click',
  'Subscription',
  'SUCCESS',
  'FAILURE',
  // End User Messaging SMS: AWS queued or is handing off the text, the carrier took it, or the carrier
  // (not AWS) failed it after hand-off; a second send would be a second text.
  'TEXT_QUEUED',
  'TEXT_PENDING',
  'TEXT_SUCCESSFUL',
  'TEXT_DELIVERED',
  'TEXT_UNREACHABLE',
  'TEXT_CARRIER_UNREACHABLE',
  'TEXT_CARRIER_BLOCKED',
  'TEXT_SPAM',
  'TEXT_UNKNOWN',
]);

/**
 * Values that prove the provider refused the message without attempting delivery
 * (SES `Reject`: content rejected; `RenderingFailure`: template could not be rendered; End User Messaging:
 * an invalid number or body, a blocked or protect-blocked destination, a text whose TimeToLive ran out
 * before hand-off).
 */
const PROVES_NOT_SENT = new Set([
  'Reject',
  'RenderingFailure',
  'TEXT_INVALID',
  'TEXT_INVALID_MESSAGE',
  'TEXT_BLOCKED',
  'TEXT_PROTECT_BLOCKED',
  'TEXT_TTL_EXPIRED',
]);

/** What a row says about its latest attempt that may have reached the provider. */
export type RowEvidenceFields = Pick<LedgerRow, 'deliveryStatus' | 'deliveryStatusClaimVersion' | 'claimVersion' | 'lastRelease'>;

/**
 * What the ledger row itself knows from the delivery-status stream.
 *
 * A status proving a send is about some attempt, and one sent message is enough: `sent`, whichever
 * attempt it came from. A refusal proves only its own attempt unsent, so it counts only when it is
 * about the latest attempt that may have reached the provider: the row's current claim, released
 * ambiguous or abandoned by a dead owner. After a transient release the current claim never reached
 * the provider and the ambiguous one is older; its refusal cannot be told from an even older
 * attempt's, so it is not trusted (the class's policy decides, as without evidence).
 */
export function evidenceFromRow(row: RowEvidenceFields): DeliveryEvidence {
  const status = row.deliveryStatus;
  if (!status) return 'none';
  if (PROVES_SENT.has(status)) return 'sent';
  if (PROVES_NOT_SENT.has(status) && aboutLatestAmbiguousAttempt(row)) return 'not-sent';
  return 'none';
}

function aboutLatestAmbiguousAttempt(row: RowEvidenceFields): boolean {
  return row.lastRelease !== 'transient' && row.deliveryStatusClaimVersion === row.claimVersion;
}

/** Row evidence first; otherwise ask the provider, where it can be asked. */
export async function gatherEvidence(
  row: RowEvidenceFields | undefined,
  lookup: (() => Promise<DeliveryEvidence>) | undefined,
): Promise<DeliveryEvidence> {
  const fromRow = row ? evidenceFromRow(row) : 'none';
  if (fromRow !== 'none' || !lookup) return fromRow;
  try {
    return await lookup();
  } catch {
    return 'none';
  }
}
