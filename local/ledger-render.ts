import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import { maskAddress } from '../functions/core/event/recipient-address';
import { unpackRequest } from '../functions/core/ledger/stored-request';

/** A ledger row as support sees it: times in ISO 8601, the address masked, no message content. */
export interface LedgerRowView {
  readonly key: string;
  readonly state: string;
  readonly channel: string;
  readonly messageClass: string;
  readonly templateId: string;
  /** The locale of the template variant the message is written in; null on a row written before locales, or whose template was missing. */
  readonly locale: string | null;
  readonly eventId: string;
  readonly recipientId: string;
  /**
   * Masked; only known while the row keeps its message for the reclaimer (PENDING and in the pending index:
   * a claim on the message's last receive); the stored message is removed when the row settles.
   */
  readonly address: string | null;
  readonly attempts: number;
  readonly claimVersion: number;
  readonly providerMessageId: string | null;
  readonly deliveryStatus: string | null;
  readonly deliveryStatusAt: string | null;
  readonly deliveryStatusSource: string | null;
  readonly deliveryStatusDetail: string | null;
  /** The claim whose e-mail the status is about (SES's `claim-version` tag); null when the event had none. */
  readonly deliveryStatusClaimVersion: number | null;
  /** The first status that proved the message was handed on, kept whatever came later (null: none yet). */
  readonly sendProvenBy: string | null;
  /** The first status that proved the message delivered, kept whatever uncertain word came later (null: none yet). */
  readonly deliveryProvenBy: string | null;
  readonly failureReason: string | null;
  /** Only for SUPPRESSED: which limit, destination rule or withdrawn consent stopped the message. */
  readonly suppressionReason: string | null;
  /** Only on a fallback's row: the key of the message (the channel before it) it replaces. */
  readonly replaces: string | null;
  /** Only for a PENDING row held by its class's quiet hours: `quiet hours until <instant> (<zone>)`. */
  readonly deferred: string | null;
  readonly lastRelease: string | null;
  readonly occurredAt: string;
  readonly createdAt: string;
  readonly claimedAt: string;
  readonly leaseExpiresAt: string;
  readonly lastAmbiguousAt: string | null;
  readonly updatedAt: string;
  readonly resolvedAt: string | null;
  readonly expiresAt: string;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The masked address of the message the row keeps for the reclaimer, if it keeps one. */
function addressOf(row: LedgerRow): string | null {
  const stored = row.request === undefined ? undefined : unpackRequest(row.request);
  return stored?.ok ? maskAddress(stored.message.to) : null;
}

/** The support view of a row. Pure. Never includes the subject, body or unmasked address. */
export function ledgerRowView(row: LedgerRow): LedgerRowView {
  return {
    key: row.key,
    state: row.state,
    channel: row.channel,
    messageClass: row.messageClass,
    templateId: row.templateId,
    locale: row.locale ?? null,
    eventId: row.eventId,
    recipientId: row.recipientId,
    address: addressOf(row),
    attempts: row.attempts,
    claimVersion: row.claimVersion,
    providerMessageId: row.providerMessageId ?? null,
    deliveryStatus: row.deliveryStatus ?? null,
    deliveryStatusAt: iso(row.deliveryStatusAt),
    deliveryStatusSource: row.deliveryStatusSource ?? null,
    deliveryStatusDetail: row.deliveryStatusDetail ?? null,
    deliveryStatusClaimVersion: row.deliveryStatusClaimVersion ?? null,
    sendProvenBy: row.sendProvenBy ?? null,
    deliveryProvenBy: row.deliveryProvenBy ?? null,
    failureReason: row.failureReason ?? null,
    suppressionReason: row.suppressionReason ?? null,
    replaces: row.replaces ?? null,
    deferred: quietHoursDeferral(row),
    lastRelease: row.lastRelease ?? null,
    occurredAt: row.occurredAt,
    createdAt: iso(row.createdAt)!,
    claimedAt: iso(row.claimedAt)!,
    leaseExpiresAt: iso(row.leaseExpiresAt)!,
    lastAmbiguousAt: iso(row.lastAmbiguousAt),
    updatedAt: iso(row.updatedAt)!,
    resolvedAt: iso(row.resolvedAt),
    expiresAt: iso(row.expiresAt * 1000)!,
  };
}

const QUIET_HOURS_RELEASE = /^QuietHours: deferred until (\S+) \(([^,]+),/;

/** `quiet hours until <instant> (<zone>)` for a PENDING row its class's quiet hours hold (its last release says so). */
function quietHoursDeferral(row: LedgerRow): string | null {
  if (row.state !== 'PENDING' || row.lastRelease !== 'transient') return null;
  const match = QUIET_HOURS_RELEASE.exec(row.failureReason ?? '');
  return match ? `quiet hours until ${match[1]} (${match[2]})` : null;
}

/** The state, with why a SUPPRESSED message was never sent (or, refused after the provider took it, never delivered) and why a PENDING one waits. */
export function ledgerStateLine(v: LedgerRowView): string {
  if (v.deferred) return `${v.state} (deferred: ${v.deferred})`;
  if (!v.suppressionReason) return v.state;
  if (v.suppressionReason !== 'Unsubscribed' && v.suppressionReason !== 'OptedOut') return `${v.state} (${v.suppressionReason}: never sent)`;
  return `${v.state} ${v.suppressionReason} (${v.providerMessageId ? 'the provider took it and did not deliver it' : 'never sent'})`;
}

/** One row as aligned `label  value` lines. Pure: the same row always renders the same text. */
export function renderLedgerRow(row: LedgerRow): string {
  const v = ledgerRowView(row);
  const dash = (value: string | null) => value ?? '-';
  const delivery = v.deliveryStatus
    ? `${v.deliveryStatus}${v.deliveryStatusDetail ? ` (${v.deliveryStatusDetail})` : ''} at ${v.deliveryStatusAt} via ${v.deliveryStatusSource ?? '?'}` +
      (v.deliveryStatusClaimVersion === null ? '' : `, about claim version ${v.deliveryStatusClaimVersion}`) +
      // A later event (another attempt's refusal) may have replaced the status; the proof of a send stays.
      (v.sendProvenBy && v.sendProvenBy !== v.deliveryStatus && v.sendProvenBy !== v.deliveryProvenBy ? `; sent, proven earlier by ${v.sendProvenBy}` : '') +
      // A later uncertain word (an out-of-office bounce) may have replaced the status; the proof of delivery stays.
      (v.deliveryProvenBy && v.deliveryProvenBy !== v.deliveryStatus ? `; delivered, proven earlier by ${v.deliveryProvenBy}` : '')
    : '- (no delivery event received)';
  const lines: [string, string][] = [
    ['key', v.key],
    ['state', ledgerStateLine(v)],
    ['message', `${v.channel}, class ${v.messageClass}, template ${v.templateId}${v.locale ? ` in ${v.locale}` : ''}`],
    // Only a fallback's row says it: the text of every other row stays as it was.
    ...(v.replaces ? ([['replaces', `${v.replaces} (a fallback: the channel before it certainly did not deliver)`]] as [string, string][]) : []),
    ['event', v.eventId],
    ['recipient', v.recipientId],
    ['address', v.address ?? '- (not kept once the row settles)'],
    ['attempts', `${v.attempts} (claim version ${v.claimVersion})`],
    ['provider message id', dash(v.providerMessageId)],
    ['delivery status', delivery],
    ['failure reason', dash(v.failureReason)],
    ['last release', dash(v.lastRelease)],
    ['occurred', v.occurredAt],
    ['created', v.createdAt],
    ['claimed', v.claimedAt],
    ['lease expires', v.leaseExpiresAt],
    ['last ambiguous at', dash(v.lastAmbiguousAt)],
    ['updated', v.updatedAt],
    ['resolved', dash(v.resolvedAt)],
    ['expires (TTL)', v.expiresAt],
  ];
  return lines.map(([label, value]) => `${label.padEnd(21)}${value}`).join('\n');
}

/** Every row of one event, with a one-line summary first. */
export function renderEventRows(eventId: string, rows: readonly LedgerRow[]): string {
  if (rows.length === 0) return `no ledger rows for event ${eventId}`;
  const summary = (['SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED', 'PENDING'] as const)
    .map((state) => [state, rows.filter((r) => r.state === state).length] as const)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const header = `event ${eventId}: ${rows.length} message${rows.length === 1 ? '' : 's'} (${summary})`;
  return [header, ...rows.map(renderLedgerRow)].join('\n\n');
}
