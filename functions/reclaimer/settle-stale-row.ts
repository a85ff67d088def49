import { keyPrefix } from '../core/event/idempotency-key';
import type { LedgerRow } from '../core/ledger/ledger-record';
import { METRIC } from '../core/observability/metric-names';
import type { MessageClassRegistry } from '../core/policy/message-class';
import { deliver, type DeliveryContext, type MessageResult } from '../delivery/deliver-message';
import { planFromRow } from './plan-from-row';

/** What became of one indexed row in a reclaimer run. */
export type RowFate = 'sent' | 'resent' | 'gaveUp' | 'failed' | 'suppressed' | 'leftPending' | 'skipped' | 'deferred';

/** What a reclaimer run does with a row a strongly consistent read confirmed as a stale PENDING claim. */
export type SettleStaleRow = (row: LedgerRow, now: number, deps: DeliveryContext & { readonly messageClasses: MessageClassRegistry }) => Promise<RowFate>;

/**
 * Settles one row a strongly consistent read confirmed as a stale PENDING claim: its plan rebuilt from the row, then
 * the sender's own fenced takeover and class policy ({@link deliver}). A module of its own, loaded with a run's first
 * stale row: most runs find none, and the delivery code is most of what the reclaimer carries (issue 50).
 */
export const settleStaleRow: SettleStaleRow = async (row, now, deps) => {
  const { plan, classKnown } = planFromRow(row, deps.messageClasses);
  const dimensions = { channel: row.channel, messageClass: row.messageClass };
  // Stryker disable next-line ObjectLiteral: the fields of this row's log lines only
  const context = {
    key: keyPrefix(row.key),
    eventId: row.eventId,
    recipientId: row.recipientId,
    channel: row.channel,
    templateId: row.templateId,
    messageClass: row.messageClass,
  };
  deps.metrics.count(METRIC.StalePendingFound, dimensions);
  deps.log.warn('Stale PENDING row found', {
    ...context,
    claimAgeMs: now - row.claimedAt,
    attempts: row.attempts,
    lastRelease: row.lastRelease ?? 'none (owner died)',
    requestStored: plan.prepared.ok,
  });
  if (!classKnown) {
    deps.log.warn('Row has a message class that is no longer configured; handled as give-up', context);
  }

  // The whole delivery context (limits, destinations, governor included), never a field-by-field copy.
  const result = await deliver(plan, { kind: 'resume', row }, deps);
  const outcome = outcomeOf(result);
  if (outcome === 'sent') deps.metrics.count(METRIC.ReclaimedSent, dimensions);
  if (outcome === 'resent') deps.metrics.count(METRIC.ReclaimedResent, dimensions);
  if (outcome === 'gaveUp') deps.metrics.count(METRIC.ReclaimedGaveUp, dimensions);
  deps.log.info('Stale PENDING row handled', {
    ...context,
    outcome,
    ...(result.settled ? { state: result.state } : { why: result.why }),
  });
  return outcome;
};

function outcomeOf(result: MessageResult): RowFate {
  if (!result.settled) return 'leftPending';
  switch (result.state) {
    case 'SENT':
      // Only this run's own provider call is a resend; evidence (or a row found settled) is not.
      return result.settledBy === 'provider-call' ? 'resent' : 'sent';
    case 'UNKNOWN':
      return 'gaveUp';
    case 'FAILED':
      return 'failed';
    case 'SUPPRESSED':
      return 'suppressed';
  }
}
