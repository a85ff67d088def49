import type { Channel } from '../../functions/core/event/idempotency-key';
import { fallbackDecision } from '../../functions/core/fallback/fallback-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { DEFAULT_FALLBACK_POLICY, type MessageClass, type MessageClassRegistry } from '../../functions/core/policy/message-class';
import type { Violation } from './history-checker';
import type { AcceptedSend } from './scripted-provider';

/** The channel a message of the model falls back to: an e-mail to a text, a text and a push to an e-mail. */
export const FALLBACK_CHANNEL: Readonly<Record<Channel, Channel>> = { email: 'sms', sms: 'email', push: 'email' };

/** The address of message `i`'s fallback: its own, so the providers count it whatever key it is sent under. */
export function fallbackAddressOf(i: number, channel: Channel): string {
  return channel === 'email' ? `m${i}.fallback@example.com` : `+1415555020${i}`;
}

export interface FallbackHistory {
  readonly fallbacks: readonly { readonly primaryKey: string; readonly fallbackKey: string; readonly messageClass: MessageClass; readonly fallbackAddress: string }[];
  /** The providers' side: every send a provider accepted. */
  readonly accepted: readonly AcceptedSend[];
  /** What the world made of each accepted send (by provider message id): none said is "may have arrived". */
  readonly fates: ReadonlyMap<string, 'delivered' | 'failed'>;
  /** The primaries' rows, and the fallbacks' rows, once recovery is over. */
  readonly primaryRows: readonly LedgerRow[];
  readonly fallbackRows: readonly LedgerRow[];
  readonly classes: MessageClassRegistry;
  /** The model's clock at the end (a class window counts from the primary's settling). */
  readonly nowMs: number;
}

export interface FallbackViolationFigures {
  /** Fallbacks a provider accepted. */
  readonly sent: number;
  /** Of those, sent while the primary may have arrived, by its class's no-evidence window (counted apart). */
  readonly withoutEvidence: number;
  /** Primaries whose every accepted send failed for good in the world, whose row cannot say so (an earlier attempt may have gone). */
  readonly undeliveredUnproven: number;
}

/**
 * The fallback rules, read from the providers' side (sends counted at the fallback's own address, whatever key they
 * carry), the world's fate of each primary send, and the final rows; never the actors' results or metrics:
 * - a fallback is sent at most once, under its own key (a class's permitted resend after an ambiguity recorded on the
 *   fallback's row apart, as for any message);
 * - a fallback is sent only when every send of its primary failed for good in the world (or none went), or by the
 *   class's no-evidence exception, its window passed since the primary's last send (counted apart);
 * - no loss: a primary whose final row the product's own decision reads as due (certainly undelivered, or its window
 *   passed) has its fallback's row, settled.
 */
export function checkFallbacks(history: FallbackHistory): { violations: Violation[]; figures: FallbackViolationFigures } {
  const violations: Violation[] = [];
  let sent = 0;
  let withoutEvidence = 0;
  let undeliveredUnproven = 0;
  const primaryRows = new Map(history.primaryRows.map((row) => [row.key, row]));
  const fallbackRows = new Map(history.fallbackRows.map((row) => [row.key, row]));
  for (const { primaryKey, fallbackKey, messageClass, fallbackAddress } of history.fallbacks) {
    const flag = (rule: string, detail: string) => violations.push({ rule, key: primaryKey.slice(-6), detail });
    const policy = messageClass.fallback ?? DEFAULT_FALLBACK_POLICY;
    const sends = history.accepted.filter((send) => send.to === fallbackAddress);
    const primarySends = history.accepted.filter((send) => send.key === primaryKey);
    const fallbackRow = fallbackRows.get(fallbackKey);
    sent += Math.min(sends.length, 1);

    for (const send of sends.filter((s) => s.key !== fallbackKey)) flag('a fallback is sent under its own key', `${send.actor} sent it under ${send.key.slice(-6)}`);
    if (sends.length > 1) {
      const mayResend = messageClass.onAmbiguous === 'resend' || (messageClass.onAmbiguous === 'lookup' && messageClass.lookupFallback === 'resend');
      if (!mayResend || fallbackRow?.lastAmbiguousAt === undefined) {
        flag('a fallback is sent at most once', `${sends.length} accepted sends of the fallback (${sends.map((s) => s.actor).join(', ')})`);
      }
    }

    const first = sends[0];
    if (first) {
      const mayHaveArrived = primarySends.filter((send) => history.fates.get(send.providerMessageId) !== 'failed');
      if (!policy.enabled) flag('a fallback only when the primary certainly did not arrive', `class ${messageClass.name} never falls back, yet ${first.actor} sent it`);
      else if (mayHaveArrived.length > 0) {
        const windowMs = policy.withoutEvidenceSeconds === undefined ? undefined : policy.withoutEvidenceSeconds * 1000;
        const lastAt = Math.max(...mayHaveArrived.map((send) => send.at));
        const primary = primaryRows.get(primaryKey);
        const row = primary ? `primary row ${primary.state} ${primary.failureReason ?? primary.suppressionReason ?? ''} status ${primary.deliveryStatus ?? 'none'} lastAmbiguousAt ${primary.lastAmbiguousAt ?? 'none'}` : 'no primary row';
        if (windowMs !== undefined && first.at >= lastAt + windowMs) withoutEvidence += 1;
        else {
          flag(
            'a fallback only when the primary certainly did not arrive',
            `${first.actor} sent it ${first.at - lastAt} ms after a send of the primary that may have arrived (${mayHaveArrived.map((s) => `${s.actor}: ${history.fates.get(s.providerMessageId) ?? 'no word'}`).join(', ')}; window ${windowMs ?? 'none'}; ${row})`,
          );
        }
      }
    }

    const primary = primaryRows.get(primaryKey);
    if (!primary) continue;
    const decision = fallbackDecision(primary, policy, history.nowMs);
    if (decision.kind === 'fall-back' && (fallbackRow === undefined || fallbackRow.state === 'PENDING')) {
      flag('no fallback lost', `primary ${primary.state} (${primary.failureReason ?? primary.suppressionReason ?? primary.deliveryStatus ?? 'no reason'}) is due its fallback (${decision.trigger}), whose row is ${fallbackRow?.state ?? 'absent'}`);
    }
    const failedInWorld = primarySends.length > 0 && primarySends.every((send) => history.fates.get(send.providerMessageId) === 'failed');
    if (failedInWorld && decision.kind !== 'fall-back') undeliveredUnproven += 1;
  }
  return { violations, figures: { sent, withoutEvidence, undeliveredUnproven } };
}
