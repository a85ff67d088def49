import type { LedgerRow } from './ledger-record';
import type { DeliveryEvidence } from './message-class';

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
]);

/**
 * Values that prove the provider refused the message without attempting delivery
 * (SES `Reject`: content rejected; `RenderingFailure`: template could not be rendered).
 */
const PROVES_NOT_SENT = new Set(['Reject', 'RenderingFailure']);

/** What the ledger row itself knows from the delivery-status stream. */
export function evidenceFromRow(row: Pick<LedgerRow, 'deliveryStatus'>): DeliveryEvidence {
  const status = row.deliveryStatus;
  if (!status) return 'none';
  if (PROVES_SENT.has(status)) return 'sent';
  if (PROVES_NOT_SENT.has(status)) return 'not-sent';
  return 'none';
}

/** Row evidence first; otherwise ask the provider, where it can be asked. */
export async function gatherEvidence(
  row: Pick<LedgerRow, 'deliveryStatus'> | undefined,
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
