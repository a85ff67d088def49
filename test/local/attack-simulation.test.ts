import { describe, expect, it } from 'vitest';
import { parseSimulateArgs } from '../../local/simulate-options';
import { formatAttackReport, judgeAttack, runAttackSimulation } from '../../local/attack-simulation';
import { generateAttackWorkload, PREMIUM_BLOCKS } from '../../local/attack-workload';
import type { OutboxLine } from '../../functions/adapters/outbox-provider';

describe('npx notifier simulate --attack', () => {
  it('a small run holds every check, judged from the outbox', { timeout: 120_000 }, async () => {
    const report = await runAttackSimulation({ seed: 7, users: 20, premiumEvents: 120, outsideEvents: 50 });
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.attack.outsideSends).toBe(0);
    expect(report.attack.perBlock.every((b) => b.sends <= 20)).toBe(true);
    expect(report.suppressedByReason['CountryNotAllowed']).toBe(50);
    expect(formatAttackReport(report)).toContain('ATTACK CONTAINED');
  });

  it('fails a check when a premium block got more than its limit, or a number outside the list got one', () => {
    const workload = generateAttackWorkload({ seed: 1, now: Date.now(), users: 1, premiumEvents: 0, outsideEvents: 0 });
    const line = (key: string, to: string): OutboxLine => ({ at: '', key, providerMessageId: 'p', messageClass: 'otp', templateId: 'login-code', message: { channel: 'sms', to, text: 'x' } });
    const outbox = [
      ...Array.from({ length: 21 }, (_, i) => line(`k${i}`, `${PREMIUM_BLOCKS[0]}${String(i).padStart(3, '0')}`)),
      line('uk', '+447911123456'),
    ];
    const report = judgeAttack({ seed: 1, countries: ['US'], workload, outbox, rows: new Map(), counted: new Map(), wallMs: 0, faults: {}, parked: 0 });
    const failed = report.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['sends to each premium block <= 20', 'sends outside the country list = 0']));
    expect(report.ok).toBe(false);
  });

  it('is a flag of simulate, refused with --wire', () => {
    expect(parseSimulateArgs(['--attack', '--seed', '3']).attack).toEqual({ seed: 3 });
    expect(() => parseSimulateArgs(['--attack', '--wire'])).toThrow(/cannot be combined/);
  });
});
