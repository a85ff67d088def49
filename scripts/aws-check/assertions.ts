import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { ExpectedMessage } from './expected-message';

/** The fields of a ledger row the check reads. */
export type ObservedRow = Pick<LedgerRow, 'key' | 'eventId' | 'recipientId' | 'channel' | 'state' | 'providerMessageId' | 'deliveryStatus' | 'claimVersion'>;

/** Where one expected message stands. */
export type MessageVerdict =
  | { readonly kind: 'passed'; readonly expected: ExpectedMessage }
  | { readonly kind: 'waiting'; readonly expected: ExpectedMessage; readonly why: string }
  | { readonly kind: 'failed'; readonly expected: ExpectedMessage; readonly why: string };

/**
 * Judges one expected message against the rows of its event: exactly one row for the recipient and
 * channel, SENT with a provider message id, and the expected final delivery status. A status still on
 * its way (or none yet) is waiting, not failed: SES events arrive seconds to minutes after the send.
 */
export function judgeMessage(expected: ExpectedMessage, rows: readonly ObservedRow[]): MessageVerdict {
  const mine = rows.filter(
    (r) => r.eventId === expected.eventId && r.recipientId === expected.recipientId && r.channel === expected.channel,
  );
  if (mine.length === 0) return { kind: 'waiting', expected, why: 'no ledger row yet' };
  if (mine.length > 1) return { kind: 'failed', expected, why: `${mine.length} ledger rows for one message (expected one)` };
  const [row] = mine as [ObservedRow];
  if (row.state === 'PENDING') return { kind: 'waiting', expected, why: 'row still PENDING' };
  if (row.state !== 'SENT') return { kind: 'failed', expected, why: `row ended ${row.state}, expected SENT` };
  if (!row.providerMessageId) return { kind: 'failed', expected, why: 'SENT row has no provider message id' };
  if (expected.takenOver && row.claimVersion <= 1) return { kind: 'failed', expected, why: 'SENT by its first claim, never taken over' };
  const status = row.deliveryStatus;
  if (status === expected.finalStatus) return { kind: 'passed', expected };
  if (status === undefined || expected.intermediateStatuses.includes(status)) {
    return { kind: 'waiting', expected, why: `delivery status ${status ?? 'none yet'}, waiting for ${expected.finalStatus}` };
  }
  return { kind: 'failed', expected, why: `delivery status ${status}, expected ${expected.finalStatus}` };
}

/** The verdict of a whole run: done once nothing is waiting. */
export interface RunVerdict {
  readonly done: boolean;
  readonly passed: boolean;
  readonly messages: readonly MessageVerdict[];
}

export function judgeRun(expected: readonly ExpectedMessage[], rows: readonly ObservedRow[]): RunVerdict {
  const messages = expected.map((e) => judgeMessage(e, rows));
  const done = messages.every((m) => m.kind !== 'waiting');
  return { done, passed: done && messages.every((m) => m.kind === 'passed'), messages };
}

/** After the deadline, whatever still waits has failed. */
export function finalVerdict(verdict: RunVerdict): RunVerdict {
  const messages = verdict.messages.map((m) =>
    m.kind === 'waiting' ? ({ kind: 'failed', expected: m.expected, why: `timed out: ${m.why}` } as const) : m,
  );
  return { done: true, passed: messages.every((m) => m.kind === 'passed'), messages };
}

/** One line per message for the report. */
export function reportLines(verdict: RunVerdict): string[] {
  return verdict.messages.map((m) => {
    const what = `${m.expected.channel} to ${m.expected.recipientId} (${m.expected.proves})`;
    return m.kind === 'passed' ? `PASS ${what}` : `${m.kind === 'failed' ? 'FAIL' : 'WAIT'} ${what}: ${m.why}`;
  });
}
