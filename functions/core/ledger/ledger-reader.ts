import type { LedgerRow } from './ledger-record';

/** Read-only look-ups for support tools. */
export interface LedgerReader {
  /** Strongly consistent read of one row. */
  get(key: string): Promise<LedgerRow | undefined>;
  /** Every row of one business event (all recipients and channels), ordered by key. */
  rowsForEvent(eventId: string): Promise<LedgerRow[]>;
}
