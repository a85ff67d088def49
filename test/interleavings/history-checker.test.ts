import { describe, expect, it } from 'vitest';
import { buildMessageClassRegistry } from '../../functions/core/message-class';
import type { LedgerRow } from '../../functions/core/ledger-record';
import { checkHistory } from './history-checker';
import type { AcceptedSend } from './scripted-provider';

const otp = buildMessageClassRegistry().get('otp')!;
const KEY = 'k'.repeat(40);
const row = { key: KEY, state: 'SENT', providerMessageId: 'email-msg-2', lastAmbiguousAt: 1, messageClass: 'otp' } as unknown as LedgerRow;
const send = (n: number, actor: string, previousSenderHeldClaim: boolean): AcceptedSend => ({
  key: KEY,
  providerMessageId: `email-msg-${n}`,
  channel: 'email',
  actor,
  answered: false,
  at: n,
  ledgerCountAtSend: 0,
  previousSenderHeldClaim,
});
const history = (sends: AcceptedSend[]) => ({
  messages: [{ key: KEY, messageClass: otp, channel: 'email' }],
  accepted: sends,
  rejectedKeys: new Set<string>(),
  rows: [row],
  wire: [],
});

describe('the history checker', () => {
  // The long run's first counterexample (seed 1422158421, path 230) was the checker's: the first
  // sender's release landed (a held copy) while it still retried it, and the takeover's resend was flagged.
  it('allows an otp resend after an ambiguity once the earlier sender handed the row back, though it still runs', () => {
    expect(checkHistory(history([send(1, 'w1', false), send(2, 'w0', false)]))).toEqual({ violations: [], permittedResends: 1 });
  });

  it('flags a resend while the earlier sender still held the claim', () => {
    expect(checkHistory(history([send(1, 'w1', false), send(2, 'w0', true)])).violations).toEqual([
      expect.objectContaining({ rule: 'no claim looks stale while its owner may still be sending' }),
    ]);
  });
});
