import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import { insideWindow, localMinutesAt } from '../functions/core/policy/quiet-hours';
import type { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import type { ConsentWorkload } from './consent-workload';
import { bump } from './stats';
import { textTable } from './text-table';

/** One provider call, on the simulation's clock. */
export interface ProviderCall {
  readonly at: number;
  readonly channel: string;
  readonly to: string;
  readonly messageClass: string;
  readonly outcome: string;
}

export interface ConsentCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface ConsentReport {
  readonly seed: number;
  readonly recipients: number;
  readonly zones: Readonly<Record<string, number>>;
  readonly withdrawals: Readonly<Record<string, number>>;
  readonly events: number;
  readonly messages: number;
  readonly providerCalls: Readonly<Record<string, number>>;
  readonly finalStates: Readonly<Record<string, number>>;
  readonly suppressedByReason: Readonly<Record<string, number>>;
  readonly quietHoursDeferrals: number;
  /** The longest any bulk text waited between its campaign and its send (hours). */
  readonly longestWaitHours: number;
  /** Bulk e-mails SES accepted and bounced because the contact had unsubscribed on SES's side only: how the stack learned it. */
  readonly learningSends: number;
  readonly checks: readonly ConsentCheck[];
  readonly ok: boolean;
  readonly virtualHours: number;
  readonly wallMs: number;
}

export interface ConsentRun {
  readonly seed: number;
  readonly workload: ConsentWorkload;
  readonly calls: readonly ProviderCall[];
  /**
   * When the stack knew of each withdrawal, by address (e-mail address or number): how many provider calls
   * had been made by then (the virtual clock stands still within a batch, so time alone cannot order them).
   */
  readonly knownAfterCalls: ReadonlyMap<string, number>;
  readonly rows: readonly LedgerRow[];
  readonly senderMetrics: InMemoryMetrics;
  readonly statusMetrics: InMemoryMetrics;
  readonly deadLettered: number;
  readonly virtualMs: number;
  readonly wallMs: number;
}

/** The invariants the run must keep, judged from the providers' side and the ledger. */
export function judgeConsentRun(run: ConsentRun): ConsentReport {
  const classes = buildMessageClassRegistry();
  const bulk = (name: string) => classes.get(name)?.bulk === true;
  const trueZone = new Map(run.workload.recipients.flatMap((r) => [[r.phone, r.trueZone] as const, [r.email, r.trueZone] as const]));
  const marketing = classes.get('marketing')!.quietHours!;

  const bulkTexts = run.calls.filter((c) => bulk(c.messageClass) && c.channel === 'sms' && c.outcome === 'sent');
  const inQuiet = bulkTexts.filter((c) => insideWindow(marketing, localMinutesAt(trueZone.get(c.to)!, c.at)));
  const afterKnown = run.calls.filter((c, i) => bulk(c.messageClass) && (run.knownAfterCalls.get(c.to) ?? Infinity) <= i);
  const nonBulkRows = run.rows.filter((r) => !bulk(r.messageClass));
  const nonBulkConsent = nonBulkRows.filter((r) => r.suppressionReason === 'Unsubscribed' || r.suppressionReason === 'OptedOut');
  const nonBulkDeferred = [...run.senderMetrics.byDimensions].filter(([key]) => key.startsWith('QuietHoursDeferred|') && !key.endsWith('|marketing'));
  const nonBulkNotSent = nonBulkRows.filter((r) => r.state !== 'SENT');
  const pending = run.rows.filter((r) => r.state === 'PENDING');
  const campaignAt = new Map(run.workload.events.map((e) => [e.event.eventId, e.at]));
  const waits = run.rows
    .filter((r) => bulk(r.messageClass) && r.channel === 'sms' && r.state === 'SENT' && r.resolvedAt !== undefined)
    .map((r) => (r.resolvedAt! - (campaignAt.get(r.eventId) ?? r.resolvedAt!)) / 3_600_000);

  const checks: ConsentCheck[] = [
    { name: 'bulk texts sent inside quiet hours (recipient\'s true zone)', ok: inQuiet.length === 0, detail: `${inQuiet.length} of ${bulkTexts.length} bulk texts` },
    { name: 'bulk sends to a recipient after its withdrawal was known', ok: afterKnown.length === 0, detail: `${afterKnown.length} (withdrawals known: ${run.knownAfterCalls.size})` },
    { name: 'otp/transactional messages suppressed for consent', ok: nonBulkConsent.length === 0, detail: `${nonBulkConsent.length} of ${nonBulkRows.length}` },
    { name: 'otp/transactional messages deferred for quiet hours', ok: nonBulkDeferred.length === 0, detail: nonBulkDeferred.map(([k, n]) => `${k}=${n}`).join(', ') || '0' },
    { name: 'otp/transactional messages not SENT', ok: nonBulkNotSent.length === 0, detail: `${nonBulkNotSent.length} of ${nonBulkRows.length}` },
    { name: 'messages left PENDING, records dead-lettered', ok: pending.length === 0 && run.deadLettered === 0, detail: `${pending.length} pending, ${run.deadLettered} dead-lettered` },
  ];
  const count = <T>(items: readonly T[], by: (item: T) => string) => {
    const map = new Map<string, number>();
    for (const item of items) bump(map, by(item));
    return Object.fromEntries([...map].sort());
  };
  return {
    seed: run.seed,
    recipients: run.workload.recipients.length,
    zones: count(run.workload.recipients, (r) => `${r.zoneGiven ? 'timeZone' : 'country'}: ${r.trueZone}`),
    withdrawals: count(run.workload.recipients.filter((r) => r.withdrawal), (r) => r.withdrawal!),
    events: run.workload.events.length,
    messages: run.rows.length,
    providerCalls: count(run.calls, (c) => `${c.messageClass} ${c.channel} ${c.outcome}`),
    finalStates: count(run.rows, (r) => `${r.messageClass} ${r.state}`),
    suppressedByReason: count(run.rows.filter((r) => r.state === 'SUPPRESSED'), (r) => `${r.messageClass} ${r.suppressionReason ?? '?'}`),
    quietHoursDeferrals: [...run.senderMetrics.byDimensions].filter(([key]) => key.startsWith('QuietHoursDeferred|')).reduce((n, [, v]) => n + v, 0),
    longestWaitHours: Math.round(Math.max(0, ...waits) * 100) / 100,
    learningSends: run.rows.filter((r) => r.suppressionReason === 'Unsubscribed' && r.deliveryStatus === 'Bounce').length,
    checks,
    ok: checks.every((c) => c.ok),
    virtualHours: Math.round((run.virtualMs / 3_600_000) * 10) / 10,
    wallMs: run.wallMs,
  };
}

export function formatConsentReport(r: ConsentReport): string {
  const section = (title: string, entries: Readonly<Record<string, number>>) => textTable([title, 'count'], Object.entries(entries));
  return [
    `Consent simulation, seed ${r.seed}: ${r.recipients} recipients, ${r.events} events, ${r.messages} messages, ${r.virtualHours} h of virtual time in ${(r.wallMs / 1000).toFixed(1)} s`,
    '',
    section('recipients (zone from)', r.zones),
    '',
    section('withdrawals', r.withdrawals),
    '',
    section('provider calls (class channel outcome)', r.providerCalls),
    '',
    section('final states', r.finalStates),
    '',
    section('suppressed (class reason)', r.suppressedByReason),
    '',
    `quiet-hours deferrals: ${r.quietHoursDeferrals}; longest wait of a bulk text: ${r.longestWaitHours} h; learning sends (SES bounced an e-mail to a contact unsubscribed on its side only): ${r.learningSends}`,
    '',
    textTable(
      ['check', 'result', 'detail'],
      r.checks.map((c) => [c.name, c.ok ? 'ok' : 'FAILED', c.detail]),
    ),
    '',
    r.ok ? 'every check holds' : 'A CHECK FAILED',
  ].join('\n');
}
