import { eventProof } from './delivery-status-meaning';
import type { LedgerRow } from '../ledger/ledger-record';
import type { DeliveryEvidence } from '../policy/message-class';

/** What a row says about its latest attempt that may have reached the provider. */
export type RowEvidenceFields = Pick<
  LedgerRow,
  'deliveryStatus' | 'deliveryStatusClaimVersion' | 'deliveryStatusIntermediate' | 'claimVersion' | 'lastRelease' | 'sendProvenBy'
>;

/**
 * What the ledger row itself knows from the delivery-status stream (what each status proves:
 * STATUS_MEANINGS in delivery-status-meaning.ts).
 *
 * Proof that the provider handed a message on is about some attempt, and one sent message is enough:
 * `sent`, whichever attempt it came from, for good (`sendProvenBy`, which no later event removes). A
 * status saying the provider accepted the request reads as a send while it is the latest word. A
 * refusal proves only its own attempt unsent, and only as the provider's final word (an intermediate one is
 * `accepted`: eventProof), so it counts only when no attempt was proven sent and it
 * is about the latest attempt that may have reached the provider: the row's current claim, released
 * ambiguous or abandoned by a dead owner. After a transient release the current claim never reached
 * the provider and the ambiguous one is older; its refusal cannot be told from an even older
 * attempt's, so it is not trusted (the class's policy decides, as without evidence).
 */
export function evidenceFromRow(row: RowEvidenceFields): DeliveryEvidence {
  if (row.sendProvenBy) return 'sent';
  const status = row.deliveryStatus;
  if (!status) return 'none';
  // An intermediate refusal (an End User Messaging event not final) reads as accepted: AWS has the text.
  const proves = eventProof(status, { intermediate: row.deliveryStatusIntermediate === true });
  // `sent` here too: a row whose proof was recorded before sendProvenBy existed.
  if (proves === 'sent' || proves === 'accepted') return 'sent';
  if (proves === 'not-sent' && aboutLatestAmbiguousAttempt(row)) return 'not-sent';
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
