import { describe, expect, it } from 'vitest';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { formatConsentReport, judgeConsentRun, type ProviderCall } from '../../local/consent-report';
import { runConsentSimulation } from '../../local/consent-simulation';
import { generateConsentWorkload } from '../../local/consent-workload';
import { parseSimulateArgs } from '../../local/simulate-options';

describe('npx notifier simulate --consent', () => {
  it('a small run holds every check, judged from the providers', { timeout: 180_000 }, async () => {
    const report = await runConsentSimulation({ seed: 3, recipients: 40 });
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    // The run exercised what it judges: texts held for the night, and withdrawals of each kind.
    expect(Object.keys(report.withdrawals).sort()).toEqual(['stop-before', 'stop-during', 'unsubscribed-before', 'unsubscribes-during']);
    expect(report.quietHoursDeferrals).toBeGreaterThan(0);
    expect(report.suppressedByReason['marketing Unsubscribed']).toBeGreaterThan(0);
    expect(report.suppressedByReason['marketing OptedOut']).toBeGreaterThan(0);
    // 11 h of a window in one zone; a US number with no timeZone waits from 21:00 in New York to 08:00 in Hawaii.
    expect(report.longestWaitHours).toBeLessThanOrEqual(16);
    expect(formatConsentReport(report)).toContain('every check holds');
  });

  it('fails a check for a bulk text in the recipient\'s night, a bulk send after a known withdrawal, a code held back', () => {
    const workload = generateConsentWorkload({ seed: 1, recipients: 4 });
    const [a, b] = workload.recipients as [(typeof workload.recipients)[0], (typeof workload.recipients)[0]];
    // 03:00 in the recipient's own zone.
    const night = Date.UTC(2026, 10, 30, 3) - zoneOffsetMs(a.trueZone, Date.UTC(2026, 10, 30, 3));
    const calls: ProviderCall[] = [
      { at: night, channel: 'sms', to: a.phone, messageClass: 'marketing', outcome: 'sent' },
      { at: night, channel: 'email', to: b.email, messageClass: 'marketing', outcome: 'sent' },
    ];
    const otp = { messageClass: 'otp', state: 'PENDING', channel: 'sms' } as unknown as LedgerRow;
    const report = judgeConsentRun({
      seed: 1,
      workload,
      calls,
      knownAfterCalls: new Map([[b.email, 0]]),
      rows: [otp],
      senderMetrics: new InMemoryMetrics(),
      statusMetrics: new InMemoryMetrics(),
      deadLettered: 0,
      virtualMs: 0,
      wallMs: 0,
    });
    const failed = report.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual([
      "bulk texts sent inside quiet hours (recipient's true zone)",
      'bulk sends to a recipient after its withdrawal was known',
      'otp/transactional messages not SENT',
      'messages left PENDING, records dead-lettered',
    ]);
    expect(report.ok).toBe(false);
  });

  it('is a flag of simulate with --seed and --recipients, refused with --wire or --attack', () => {
    expect(parseSimulateArgs(['--consent', '--seed', '3', '--recipients', '50']).consent).toEqual({ seed: 3, recipients: 50 });
    expect(() => parseSimulateArgs(['--consent', '--wire'])).toThrow(/cannot be combined/);
    expect(() => parseSimulateArgs(['--recipients', '5'])).toThrow(/needs --consent/);
  });
});

/** The zone's offset from UTC at `at` (ms; positive east of Greenwich). */
function zoneOffsetMs(zone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute')) - at;
}
