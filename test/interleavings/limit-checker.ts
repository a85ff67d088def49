import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { Violation } from './history-checker';
import type { AcceptedSend } from './scripted-provider';

/** One window of one limit counter, as the model read it back after the run. */
export interface CounterWindowSeen {
  /** Partition, sort key and window attribute: the window's identity. */
  readonly id: string;
  readonly scope: string;
  readonly max: number;
  /** The event digests the window holds (hex). */
  readonly digests: readonly string[];
}

/** A limited message: its event's digest and the windows it counts in (those of its first claim). */
export interface LimitedMessage {
  readonly key: string;
  readonly digest: string;
  readonly windows: readonly CounterWindowSeen[];
}

/**
 * The abuse limits, read from the providers' side and the counter items:
 * - per window, the distinct events a provider accepted never exceed its limit;
 * - no accepted send whose event the window does not hold (a send that was never counted);
 * - a window holds only this schedule's events whose messages count in it, and never more than its limit;
 * - SUPPRESSED is terminal, never sent, and refused by a full window that does not already hold the
 *   message (a message refused by its own earlier count was counted twice).
 */
export function checkLimits(limited: readonly LimitedMessage[], accepted: readonly AcceptedSend[], rows: readonly LedgerRow[]): Violation[] {
  const violations: Violation[] = [];
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const sentKeys = new Set(accepted.map((send) => send.key));
  const windows = new Map<string, { window: CounterWindowSeen; members: Set<string>; sentEvents: Set<string> }>();
  for (const message of limited) {
    const flag = (rule: string, detail: string) => violations.push({ rule, key: message.key.slice(-6), detail });
    const sent = sentKeys.has(message.key);
    for (const window of message.windows) {
      const entry = windows.get(window.id) ?? { window, members: new Set<string>(), sentEvents: new Set<string>() };
      entry.members.add(message.digest);
      if (sent) entry.sentEvents.add(message.digest);
      windows.set(window.id, entry);
      if (sent && !window.digests.includes(message.digest)) flag('every send counted', `accepted by a provider, but its ${window.scope} window does not hold its event`);
    }
    const row = byKey.get(message.key);
    if (row?.state !== 'SUPPRESSED') continue;
    if (sent) flag('SUPPRESSED never sent', `SUPPRESSED (${row.suppressionReason ?? 'no reason'}) but a provider accepted it`);
    if (!row.suppressionReason || !row.failureReason) flag('SUPPRESSED with its reason', `SUPPRESSED without a reason (${row.failureReason ?? 'none'})`);
    const refusedBy = message.windows.filter((w) => w.digests.length >= w.max && !w.digests.includes(message.digest));
    if (refusedBy.length === 0) {
      flag(
        'suppressed only by a full window',
        `SUPPRESSED (${row.suppressionReason ?? 'no reason'}), though every window had room for it or held it already: ${message.windows.map((w) => `${w.scope} ${w.digests.length}/${w.max}${w.digests.includes(message.digest) ? ' incl. itself' : ''}`).join(', ')}`,
      );
    }
  }
  for (const { window, members, sentEvents } of windows.values()) {
    const flag = (rule: string, detail: string) => violations.push({ rule, key: window.id.slice(-12), detail });
    if (sentEvents.size > window.max) flag('never over a limit', `${sentEvents.size} distinct events accepted by the providers in a ${window.scope} window of ${window.max}`);
    if (window.digests.length > window.max) flag('never over a limit', `the ${window.scope} counter holds ${window.digests.length} events, limit ${window.max}`);
    const strays = window.digests.filter((digest) => !members.has(digest));
    if (strays.length > 0) flag('no message counted twice', `the ${window.scope} counter holds ${strays.length} digests of no message counting in it`);
  }
  return violations;
}
