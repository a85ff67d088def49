import { expect } from 'vitest';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';

/** The row under `key`, read strongly consistent; fails the test when there is none. */
export async function currentRow(ledger: Pick<SendLedger, 'get'>, key: string): Promise<LedgerRow> {
  const row = await ledger.get(key);
  if (!row) throw new Error(`no row ${key}`);
  return row;
}

/** Asserts that `write` is refused and leaves the row exactly as it was. */
export async function refusedAndUnchanged(ledger: Pick<SendLedger, 'get'>, key: string, write: () => Promise<boolean>): Promise<void> {
  const before = await currentRow(ledger, key);
  expect(await write()).toBe(false);
  expect(await currentRow(ledger, key)).toEqual(before);
}
