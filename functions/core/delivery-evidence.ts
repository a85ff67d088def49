import type { LedgerRow } from './ledger-record';
import type { DeliveryEvidence } from './message-class';

/**
 * Delivery-status values (SES event types, SNS SMS statuses) that prove the provider
 * accepted the message for delivery. Anything else is no proof either way.
 */
const PROVES_SENT = new Set(['Send', 'Delivery', 'DeliveryDelay', 'Bounce', 'Complaint', 'Open', 'Click', 'SUCCESS']);

/** What the ledger row itself knows from the delivery-status stream. */
export function evidenceFromRow(row: Pick<LedgerRow, 'deliveryStatus'>): DeliveryEvidence {
  return row.deliveryStatus && PROVES_SENT.has(row.deliveryStatus) ? 'sent' : 'none';
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
