import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import type { SmsLogSubscriptionCounts } from './sms-log-subscription';
import { bump } from './stats';
import { textTable } from './text-table';

/**
 * The end-of-run summary. The message counts are the ledger's rows, each once in its final state (`sent`,
 * `failed`, `unknown`, `suppressed`, `pending` add up to `messages`); what the providers accepted is a separate
 * count, since a provider may accept a message that ends SUPPRESSED (an unsubscribed contact's bounce).
 */
export interface LocalRunSummary {
  readonly events: number;
  readonly queueMessages: number;
  /** Ledger rows: one per recipient x channel. */
  readonly messages: number;
  /** Rows SENT. */
  readonly sent: number;
  /** Rows FAILED, by reason. */
  readonly failed: Readonly<Record<string, number>>;
  /** Rows UNKNOWN (the class gave up on an ambiguous send). */
  readonly unknown: number;
  /** Rows SUPPRESSED, by reason: a limit, a destination rule or withdrawn consent. */
  readonly suppressed: Readonly<Record<string, number>>;
  /** Of the SUPPRESSED: the provider accepted the message and did not deliver it (the row has its message id). */
  readonly suppressedAfterAcceptance: number;
  /** Rows PENDING. */
  readonly pending: number;
  /** Of the pending: held by quiet hours, each until the time its row says (`npx notifier ledger`). */
  readonly heldForQuietHours: number;
  /** Sends a provider accepted (the `accepted` lines printed during the run). */
  readonly providerAccepted: number;
  readonly suppressedDuplicates: number;
  /** Records received again (ApproximateReceiveCount > 1). */
  readonly retried: number;
  /**
   * Records a sender listed in its partial batch response (`RecordRetried`; its log says why: out of the invocation's
   * time, another worker's claim, a provider's pace). Each is received again.
   */
  readonly handedBack: number;
  /** Records of invocations that timed out, crashed or answered with no valid response: each comes back, uncounted by the sender. */
  readonly inFailedInvocations: number;
  readonly deadLettered: Readonly<Record<string, number>>;
  /** The outcome events the run put on the local bus, and the JSON-lines file they are in. @default none (no feed) */
  readonly outcomeFeed?: { readonly events: number; readonly file: string };
  /**
   * SNS's SMS delivery-status log lines the log subscription handed to the status function, and its batches that went
   * to the failure destination after Lambda's retries (their lines' evidence never reached the ledger). @default none
   */
  readonly smsDeliveryLogs?: SmsLogSubscriptionCounts;
}

/** The message counts of a summary: each ledger row once, in its final state. */
export type FinalStateCounts = Pick<
  LocalRunSummary,
  'messages' | 'sent' | 'failed' | 'unknown' | 'suppressed' | 'suppressedAfterAcceptance' | 'pending' | 'heldForQuietHours'
>;

/** Counts the rows by state (FAILED by the reason's name, SUPPRESSED by its reason). Pure. */
export function finalStates(rows: Iterable<LedgerRow>): FinalStateCounts {
  const failed = new Map<string, number>();
  const suppressed = new Map<string, number>();
  let messages = 0;
  let sent = 0;
  let unknown = 0;
  let pending = 0;
  let heldForQuietHours = 0;
  let suppressedAfterAcceptance = 0;
  for (const row of rows) {
    messages += 1;
    if (row.state === 'SENT') sent += 1;
    if (row.state === 'FAILED') bump(failed, (row.failureReason ?? 'unknown').split(':')[0] ?? 'unknown');
    if (row.state === 'UNKNOWN') unknown += 1;
    if (row.state === 'SUPPRESSED') bump(suppressed, row.suppressionReason ?? 'unknown');
    // The provider's message id stays on a row the provider accepted and then refused (an unsubscribed contact's bounce).
    if (row.state === 'SUPPRESSED' && row.providerMessageId !== undefined) suppressedAfterAcceptance += 1;
    if (row.state === 'PENDING') pending += 1;
    if (row.state === 'PENDING' && row.failureReason?.startsWith('QuietHours:')) heldForQuietHours += 1;
  }
  return {
    messages,
    sent,
    failed: Object.fromEntries(failed),
    unknown,
    suppressed: Object.fromEntries(suppressed),
    suppressedAfterAcceptance,
    pending,
    heldForQuietHours,
  };
}

/**
 * The summary as a table: first the messages, each once in its final ledger state (the state lines add up to
 * the messages), then what happened on the way (provider acceptances, duplicates, redeliveries, dead letters).
 */
export function formatLocalSummary(s: LocalRunSummary): string {
  const total = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0);
  const reasons = (counts: Readonly<Record<string, number>>) => Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)).map(([reason, n]) => [`    ${reason}`, n] as [string, number]);
  return textTable(
    ['summary', 'count'],
    [
      ['messages (recipient x channel), each in its final ledger state', s.messages],
      ['  SENT', s.sent],
      ['  FAILED', total(s.failed)],
      ...reasons(s.failed),
      ['  UNKNOWN (the class gave up on an ambiguous send)', s.unknown],
      ['  SUPPRESSED (limits, destinations, consent)', total(s.suppressed)],
      ...reasons(s.suppressed),
      ['    of which the provider accepted and did not deliver', s.suppressedAfterAcceptance],
      ['  PENDING', s.pending],
      ['    held for quiet hours (deferred to the recipient\'s morning)', s.heldForQuietHours],
      ['provider sends accepted (the "accepted" lines above)', s.providerAccepted],
      ['events (distinct eventIds)', s.events],
      ['queue messages sent (every input line: producer retries and replays included)', s.queueMessages],
      ['duplicates suppressed (a delivery of a message already settled)', s.suppressedDuplicates],
      ['received again (a message a sender handed back to its queue)', s.retried],
      ['  handed back by a sender, each with its reason logged', s.handedBack],
      ['  in invocations that timed out or crashed', s.inFailedInvocations],
      ['DLQ (whole events, no ledger row)', total(s.deadLettered)],
      ...Object.entries(s.deadLettered).sort(([a], [b]) => a.localeCompare(b)).map(([reason, n]) => [`  ${reason}`, n] as [string, number]),
      ...(s.smsDeliveryLogs
        ? ([
            ['SMS delivery-status log lines handed to the status function', s.smsDeliveryLogs.handedOver],
            ["  batches sent to the failure destination (after Lambda's retries)", s.smsDeliveryLogs.failedBatches],
            ['  batches Lambda refused as too large (skipped, as CloudWatch Logs skips them)', s.smsDeliveryLogs.refusedTooLarge],
          ] as [string, number][])
        : []),
      ...(s.outcomeFeed ? [[`outcome events (one per state change a producer sees; in ${s.outcomeFeed.file})`, s.outcomeFeed.events] as [string, number]] : []),
    ],
  );
}
