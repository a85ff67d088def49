import type { Claim, LedgerRow } from '../../functions/core/ledger/ledger-record';
import { KeptLedgerWrites, type KeptLedgerWrite } from '../../functions/delivery/kept-ledger-writes';
import { environmentOf, type LedgerWireRecord } from './scheduled-ledger-transport';

/**
 * Coverage of the kept writes' hardest case, reported by the interleaving run, never checked.
 *
 * An environment's kept writes, telling when a delivery asks about a row whose current claim is not the unsent one it
 * keeps for that key (another environment's, or a later one): the case `holdsUnsent` must answer no to.
 */
export class ObservedKeptWrites extends KeptLedgerWrites {
  private readonly unsent: Claim[] = [];
  constructor(private readonly metAnotherClaim: (row: Partial<LedgerRow>) => void) {
    super();
  }
  override keep(entry: KeptLedgerWrite): KeptLedgerWrite | undefined {
    if (entry.kind === 'release') this.unsent.push(entry.claim);
    if (entry.kind === 'release-unconfirmed') {
      const a = entry.attempt;
      this.unsent.push(a.kind === 'claim' ? a.row : { key: a.key, ownerToken: a.fields.ownerToken, claimVersion: a.fields.claimVersion });
    }
    return super.keep(entry);
  }
  override holdsUnsent(row: Pick<LedgerRow, 'key' | 'ownerToken' | 'claimVersion'>): boolean {
    const held = super.holdsUnsent(row);
    if (!held && this.unsent.some((claim) => claim.key === row.key && super.holdsUnsent(claim))) this.metAnotherClaim(row);
    return held;
  }
}

/**
 * Releases that reached DynamoDB while the row's current claim (the latest claim or takeover executed on it, held or
 * released, the row not settled since) was another execution environment's: the case a kept release must leave alone.
 */
export function releasesMeetingAnotherOwner(wire: readonly LedgerWireRecord[]): number {
  const owner = new Map<string, string | undefined>();
  let met = 0;
  for (const record of wire) {
    if (!record.key) continue;
    const values = (record.body.ExpressionAttributeValues ?? {}) as Record<string, { S?: string }>;
    if (record.write === 'claim' && record.status === 200) {
      const item = (record.body.Item ?? {}) as Record<string, { S?: string }>;
      owner.set(record.key, item.ownerToken?.S);
    } else if (record.write === 'takeover' && record.status === 200) owner.set(record.key, values[':owner']?.S);
    else if (record.write === 'complete' && record.status === 200) owner.delete(record.key);
    else if (record.write === 'release') {
      const current = owner.get(record.key);
      if (current !== undefined && environmentOf(current) !== environmentOf(record.actor)) met += 1;
    }
  }
  return met;
}
