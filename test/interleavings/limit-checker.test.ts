import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { checkLimits, type LimitedMessage } from './limit-checker';
import type { AcceptedSend } from './scripted-provider';

const window = (digests: string[]) => ({ id: 'limit#a|3600:1|w3600_1', scope: 'address', max: 1, digests });
const message = (n: number, digests: string[]): LimitedMessage => ({ key: `key-${n}`.padEnd(40, 'x'), digest: `d${n}`, windows: [window(digests)] });
const sent = (n: number): AcceptedSend => ({
  key: `key-${n}`.padEnd(40, 'x'),
  providerMessageId: `sms-msg-${n}`,
  channel: 'sms',
  actor: 'w0.d0',
  answered: true,
  at: 0,
  ledgerCountAtSend: 0,
  previousSenderHeldClaim: false,
});
const suppressed = (n: number) =>
  ({ key: `key-${n}`.padEnd(40, 'x'), state: 'SUPPRESSED', suppressionReason: 'address-limit', failureReason: 'address-limit: 1 per 1 h' }) as unknown as LedgerRow;

describe('the limit checker', () => {
  it('passes one send in a window of one and the second message suppressed by the full window', () => {
    expect(checkLimits([message(1, ['d1']), message(2, ['d1'])], [sent(1)], [suppressed(2)])).toEqual([]);
  });

  it('flags a message suppressed by a window that holds its own count (counted twice)', () => {
    expect(checkLimits([message(1, ['d1'])], [], [suppressed(1)]).map((v) => v.rule)).toEqual(['suppressed only by a full window']);
  });

  it('flags two distinct events accepted in a window of one, and a send its window never counted', () => {
    const rules = checkLimits([message(1, ['d1']), message(2, ['d1'])], [sent(1), sent(2)], []).map((v) => v.rule);
    expect(rules).toEqual(['every send counted', 'never over a limit']);
  });

  it('flags a SUPPRESSED message a provider accepted', () => {
    const rules = checkLimits([message(1, ['d1']), message(2, ['d1'])], [sent(1), sent(2)], [suppressed(2)]).map((v) => v.rule);
    expect(rules).toContain('SUPPRESSED never sent');
  });
});
