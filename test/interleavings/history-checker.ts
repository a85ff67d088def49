import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { LedgerTiming } from '../../functions/core/ledger/ledger-decision';
import type { MessageClass, MessageClassRegistry } from '../../functions/core/policy/message-class';
import { settleBoundMs } from '../../functions/core/ledger/settle-bound';
import { evidenceFromRow } from '../../functions/core/provider/delivery-evidence';
import { environmentOf, type LedgerWireRecord } from './scheduled-ledger-transport';
import type { AcceptedSend } from './scripted-provider';

/** One broken rule, with the key (its last six characters) and what was seen. */
export interface Violation {
  readonly rule: string;
  readonly key: string;
  readonly detail: string;
}

export interface History {
  readonly messages: readonly { readonly key: string; readonly messageClass: MessageClass; readonly channel: string }[];
  /** The providers' side: every send a provider accepted. */
  readonly accepted: readonly AcceptedSend[];
  readonly rejectedKeys: ReadonlySet<string>;
  /** The ledger rows once the faults stopped and the reclaimer ran. */
  readonly rows: readonly LedgerRow[];
  /** Every request attempt that executed at DynamoDB, in order, with its answer. */
  readonly wire: readonly LedgerWireRecord[];
  /** The ledger timing the stack ran with: each row's bound and TTL derive from it. @default none: bounds not checked */
  readonly timing?: LedgerTiming;
  /** Keys whose proof of a send (a keyed delivery event) the status Lambda processed to the end. @default none */
  readonly provenKeys?: ReadonlySet<string>;
}

/** Reasons of a message ended without a call by a rule (its bound, its lifetime): certainly not sent by that attempt. */
const ENDED_BY_RULE = /^(SettleBoundReached|LifetimeExpired): /;

/**
 * Reads only what the providers accepted, the ledger's final rows, and which writes DynamoDB
 * executed; never the actors' own results or metrics, so a bug that lies about itself is still seen.
 */
export function checkHistory(history: History): { violations: Violation[]; permittedResends: number } {
  const violations: Violation[] = [];
  let permittedResends = 0;
  const rows = new Map(history.rows.map((row) => [row.key, row]));
  for (const { key, messageClass } of history.messages) {
    const flag = (rule: string, detail: string) => violations.push({ rule, key: key.slice(-6), detail });
    const sends = history.accepted.filter((send) => send.key === key);
    const row = rows.get(key);

    // Per key at most one accepted send, except resends the class permits after a recorded ambiguity.
    if (sends.length > 1) {
      const mayResend = messageClass.onAmbiguous === 'resend' || (messageClass.onAmbiguous === 'lookup' && messageClass.lookupFallback === 'resend');
      if (!mayResend) flag('at most one accepted send', `${sends.length} accepted sends of a ${messageClass.name} message (class never resends)`);
      else if (row?.lastAmbiguousAt === undefined) flag('at most one accepted send', `${sends.length} accepted sends and no ambiguity recorded on the row`);
      else permittedResends += sends.length - 1;
      sends.forEach((send, i) => {
        const previous = sends[i - 1];
        if (!previous) return;
        // An ambiguity is only ever resolved once its attempt is over: its owner died or handed the row back.
        if (send.previousSenderHeldClaim) {
          flag('no claim looks stale while its owner may still be sending', `send ${i + 1} by ${send.actor} while ${previous.actor}, which sent before, still held the claim`);
        }
        if (messageClass.onAmbiguous === 'lookup' && send.at - previous.at < messageClass.evidenceWaitSeconds * 1000) {
          flag('resend only after the evidence wait', `send ${i + 1} ${send.at - previous.at} ms after the previous one (wait ${messageClass.evidenceWaitSeconds} s)`);
        }
      });
    }

    // A live owner's claim is never taken over, so whoever sends still holds the row's latest claim.
    for (const send of sends) {
      const current = currentClaimVersion(history.wire.slice(0, send.ledgerCountAtSend), key);
      if (send.claimVersion !== undefined && current !== send.claimVersion) {
        flag('a send only under the row\'s current claim', `${send.actor} sent under version ${send.claimVersion} while version ${current ?? 'none'} owned the row`);
      }
    }

    if (!row) {
      flag('nothing dropped', 'no ledger row: the message was never claimed and nobody will send it');
      continue;
    }
    // One sent message is enough, whichever attempt: no later event, of any attempt, takes its proof away.
    if (history.provenKeys?.has(key) && evidenceFromRow(row) !== 'sent') {
      flag('proof of a send is never lost', `a delivery event was processed, but the row reads ${evidenceFromRow(row)} (status ${row.deliveryStatus ?? 'none'})`);
    }
    switch (row.state) {
      case 'PENDING':
        flag('every message terminal', `still PENDING after recovery (attempts ${row.attempts}, lastRelease ${row.lastRelease ?? 'none'})`);
        break;
      case 'SENT': {
        const ids = new Set(sends.map((send) => send.providerMessageId));
        if (sends.length === 0) flag('no SENT without an accepted send', `SENT (${row.providerMessageId ?? 'no id'}) but no provider accepted it`);
        else if (!row.providerMessageId || (!ids.has(row.providerMessageId) && row.providerMessageId !== `evidence:${key}`)) {
          flag('no SENT without an accepted send', `SENT with id ${row.providerMessageId ?? 'none'}, which no provider gave`);
        }
        break;
      }
      case 'FAILED': {
        // Ended by a rule without a call: "certainly not delivered" holds only if no provider ever accepted it.
        const endedByRule = ENDED_BY_RULE.test(row.failureReason ?? '');
        if (endedByRule && sends.length > 0) flag('three facts, never two', `FAILED (${row.failureReason ?? ''}) though a provider accepted ${sends.length} send(s)`);
        if (!endedByRule && !history.rejectedKeys.has(key)) flag('nothing dropped', `FAILED (${row.failureReason ?? 'no reason'}) though no provider rejected it`);
        break;
      }
      case 'UNKNOWN':
        if (row.failureReason?.startsWith('SettleBoundReached')) break;
        if (messageClass.onAmbiguous !== 'give-up' && !(messageClass.onAmbiguous === 'lookup' && messageClass.lookupFallback === 'give-up')) {
          flag('nothing dropped', `UNKNOWN, but class ${messageClass.name} never gives up`);
        }
        if (!row.failureReason?.startsWith('OutcomeUnknown')) flag('nothing dropped', `UNKNOWN without the ambiguity recorded (${row.failureReason ?? 'no reason'})`);
        break;
    }
    if (history.timing) violations.push(...endsWithinItsBound(row, messageClass, history.timing));
  }
  violations.push(...settledRowsUnchanged(history.wire), ...writesByTheOwner(history.wire));
  return { violations, permittedResends };
}

/**
 * Every row ends within its bound (review defect 3): its TTL never past its first claim plus the retention; settled
 * no later than one more attempt (two claim timeouts) after its class's bound; ended at its bound never before it.
 */
export function endsWithinItsBound(row: LedgerRow, messageClass: Pick<MessageClass, 'settleWithinSeconds'>, timing: LedgerTiming): Violation[] {
  const violations: Violation[] = [];
  const flag = (detail: string) => violations.push({ rule: 'every row ends within its bound', key: row.key.slice(-6), detail });
  const ttlLimit = Math.ceil((row.createdAt + timing.retentionMs) / 1000);
  if (row.expiresAt > ttlLimit) flag(`TTL ${row.expiresAt} past its first claim + retention (${ttlLimit})`);
  const bound = settleBoundMs(messageClass, timing);
  if (row.resolvedAt !== undefined && row.resolvedAt > row.createdAt + bound + 2 * timing.claimTimeoutMs) {
    flag(`settled ${row.resolvedAt - row.createdAt} ms after its first claim, bound ${bound} ms`);
  }
  if (row.failureReason?.startsWith('SettleBoundReached') && (row.resolvedAt ?? 0) < row.createdAt + bound) {
    flag(`ended at its bound ${(row.resolvedAt ?? 0) - row.createdAt} ms after its first claim, before the bound (${bound} ms)`);
  }
  return violations;
}

/** The claim version of the latest claim or takeover of `key` that executed in `wire`. */
function currentClaimVersion(wire: readonly LedgerWireRecord[], key: string): number | undefined {
  let version: string | undefined;
  for (const record of wire) {
    if (record.key !== key || record.status !== 200) continue;
    if (record.write === 'claim') version = ((record.body.Item ?? {}) as Record<string, { N?: string }>).claimVersion?.N;
    if (record.write === 'takeover') version = ((record.body.ExpressionAttributeValues ?? {}) as Record<string, { N?: string }>)[':version']?.N;
  }
  return version === undefined ? undefined : Number(version);
}

/**
 * Once a row is settled, the only writes that may still succeed on it are delivery statuses and
 * the settling write itself again (an SDK retry after a lost answer, fenced on the same claim).
 */
function settledRowsUnchanged(wire: readonly LedgerWireRecord[]): Violation[] {
  const violations: Violation[] = [];
  const settledBy = new Map<string, { values: string; version: unknown; state: unknown }>();
  for (const record of wire) {
    if (!record.key || record.status !== 200 || record.write === 'get' || record.write === 'query' || record.write === 'status') continue;
    const values = (record.body.ExpressionAttributeValues ?? {}) as Record<string, { S?: string; N?: string }>;
    const settled = settledBy.get(record.key);
    const fence = { values: JSON.stringify(values), version: values[':version']?.N, state: values[':state']?.S };
    if (settled) {
      // The same request again (an SDK retry or a held copy of it), byte for byte: it writes what is there.
      const sameWrite = record.write === 'complete' && fence.values === settled.values;
      if (!sameWrite) {
        violations.push({
          rule: 'no settled row changed',
          key: record.key.slice(-6),
          detail: `${record.write} by ${record.actor} (version ${fence.version ?? '?'}) succeeded after the row was settled ${String(settled.state)} by version ${String(settled.version)}`,
        });
      }
      continue;
    }
    if (record.write === 'complete') settledBy.set(record.key, fence);
  }
  return violations;
}

/**
 * Every release or outcome that succeeded was the write of the row's current claim (the latest claim
 * or takeover that executed on it), sent by the execution environment that made that claim. A write
 * fenced on an older claim (a kept write made after a takeover, a late copy) that still lands has
 * changed a row another claim version owns, settled or not; a write on another environment's claim
 * was never that environment's to make, whatever its fence.
 */
function writesByTheOwner(wire: readonly LedgerWireRecord[]): Violation[] {
  const violations: Violation[] = [];
  const owner = new Map<string, { token: string | undefined; version: string | undefined }>();
  for (const record of wire) {
    if (!record.key || record.status !== 200) continue;
    const values = (record.body.ExpressionAttributeValues ?? {}) as Record<string, { S?: string; N?: string }>;
    const claim = { token: values[':owner']?.S, version: values[':version']?.N };
    switch (record.write) {
      case 'claim': {
        const item = (record.body.Item ?? {}) as Record<string, { S?: string; N?: string }>;
        owner.set(record.key, { token: item.ownerToken?.S, version: item.claimVersion?.N });
        break;
      }
      case 'takeover':
        owner.set(record.key, claim);
        break;
      case 'release':
      case 'complete': {
        // The claim's owner token names the actor that made it; only its execution environment ever holds it.
        const claimedBy = claim.token?.replace(/-t\d+$/, '');
        if (claimedBy !== undefined && environmentOf(claimedBy) !== environmentOf(record.actor)) {
          violations.push({
            rule: 'a claim is released or settled only by its own execution environment',
            key: record.key.slice(-6),
            detail: `${record.write} by ${record.actor} on the claim of ${claimedBy} (version ${claim.version ?? '?'})`,
          });
        }
        const current = owner.get(record.key);
        if (current && (current.token !== claim.token || current.version !== claim.version)) {
          violations.push({
            rule: 'no write by a claim that no longer owns the row',
            key: record.key.slice(-6),
            detail: `${record.write} by ${record.actor} fenced on version ${claim.version ?? '?'} (${claim.token ?? '?'}) succeeded while version ${current.version ?? '?'} (${current.token ?? '?'}) owned the row`,
          });
        }
        break;
      }
    }
  }
  return violations;
}

/**
 * One reclaimer run a claim timeout after the last activity settles every row, except a
 * transactional one that is waiting for delivery evidence within its class's wait.
 */
export function checkSettledAfterOneReclaim(
  keys: readonly string[],
  rows: readonly LedgerRow[],
  classes: MessageClassRegistry,
  {
    keyedEvidence = () => false,
    runStartedAt = Number.POSITIVE_INFINITY,
  }: {
    readonly keyedEvidence?: (row: LedgerRow) => boolean;
    /**
     * When the first run started (model clock): a row claimed or released since (a kept write of an environment
     * invoked beside the run, landing between the run's read and its takeover) starts the bound again, as the
     * design's "one claim timeout plus one reclaimer period after its last claim" says. @default none
     */
    readonly runStartedAt?: number;
  } = {},
): Violation[] {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.flatMap((key) => {
    const row = byKey.get(key);
    if (!row || row.state !== 'PENDING' || row.updatedAt >= runStartedAt) return [];
    const messageClass = classes.get(row.messageClass);
    // A lookup class waits its evidence wait; where the provider's events carry the key, every class its window.
    const waitsForEvidence = messageClass?.onAmbiguous === 'lookup' || (keyedEvidence(row) && (messageClass?.evidenceWindowSeconds ?? 0) > 0);
    const waiting = waitsForEvidence && row.lastRelease === 'ambiguous';
    return waiting
      ? []
      : [{ rule: 'settled by the first reclaimer run after the claim timeout', key: key.slice(-6), detail: `PENDING (lastRelease ${row.lastRelease ?? 'none'}, attempts ${row.attempts})` }];
  });
}
