import { describe, expect, it } from 'vitest';
import { FaultPlan, NO_FAULTS } from '../../local/fault-plan';
import { parseSimulateArgs, UsageError } from '../../local/simulate-options';

describe('FaultPlan', () => {
  it('decides by seed, message and opportunity only, never by call order', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `key-${i}`);
    const rates = { ...NO_FAULTS, providerTimeout: 0.3 };
    const forward = new FaultPlan(7, rates, 5);
    const backward = new FaultPlan(7, rates, 5);
    const a = keys.map((k) => [forward.roll('providerTimeout', k), forward.roll('providerTimeout', k)]);
    const b = [...keys].reverse().map((k) => [backward.roll('providerTimeout', k), backward.roll('providerTimeout', k)]).reverse();
    expect(a).toEqual(b);
    const otherSeed = new FaultPlan(8, rates, 5);
    expect(keys.map((k) => [otherSeed.roll('providerTimeout', k), otherSeed.roll('providerTimeout', k)])).not.toEqual(a);
    // About the rate: 30% of 400 opportunities.
    expect(forward.injected.providerTimeout).toBeGreaterThan(80);
    expect(forward.injected.providerTimeout).toBeLessThan(160);
  });

  it('fires each kind at most the cap per message and call site', () => {
    const plan = new FaultPlan(1, { ...NO_FAULTS, dynamoThrottle: 1 }, 1);
    expect([plan.roll('dynamoThrottle', 'k', 'claim'), plan.roll('dynamoThrottle', 'k', 'claim')]).toEqual([true, false]);
    expect(plan.roll('dynamoThrottle', 'k', 'complete')).toBe(true);
    expect(plan.injected.dynamoThrottle).toBe(2);
  });
});

describe('notifier simulate options', () => {
  it('turns every fault kind on by default and off with --no-faults', () => {
    const defaults = parseSimulateArgs([]).options;
    expect(Object.values(defaults.faults ?? {}).every((rate) => rate > 0)).toBe(true);
    expect(Object.values(parseSimulateArgs(['--no-faults']).options.faults ?? {}).every((rate) => rate === 0)).toBe(true);
  });

  it('maps crash points and rates, and rejects what it cannot run', () => {
    const { options } = parseSimulateArgs(['--crash', 'after-send', '--crash-rate', '0.1', '--events', '50', '--seed', '9', '--sender', 'naive']);
    expect(options).toMatchObject({ events: 50, seed: 9, sender: 'naive', faults: { crashAfterSend: 0.1, crashBeforeClaim: 0, crashAfterClaim: 0, crashAfterOutcome: 0 } });
    expect(() => parseSimulateArgs(['--crash', 'mid-air'])).toThrow(UsageError);
    expect(() => parseSimulateArgs(['--duplicates', '1.5'])).toThrow(UsageError);
    expect(() => parseSimulateArgs(['--sender', 'other'])).toThrow(UsageError);
  });

  it('takes the urgent lane\'s concurrency on the wire only (the port-level run has no lanes)', () => {
    expect(parseSimulateArgs(['--wire', '--urgent-concurrency', '3', '--concurrency', '6']).wire).toMatchObject({ urgentConcurrency: 3, concurrency: 6 });
    expect(parseSimulateArgs(['--wire']).wire?.urgentConcurrency).toBeUndefined();
    expect(() => parseSimulateArgs(['--urgent-concurrency', '3'])).toThrow(/needs --wire/);
    expect(() => parseSimulateArgs(['--wire', '--urgent-concurrency', '1'])).toThrow(/--urgent-concurrency must be an integer from 2 to 1000/);
  });

  it('takes whole-ledger outages on the wire only', () => {
    expect(parseSimulateArgs(['--wire', '--ledger-outage', '8', '--ledger-outage-every', '12']).wire?.ledgerOutage).toEqual({ seconds: 8, everySeconds: 12 });
    expect(parseSimulateArgs(['--wire', '--ledger-outage', '5']).wire?.ledgerOutage).toEqual({ seconds: 5, everySeconds: 30 });
    expect(parseSimulateArgs(['--wire']).wire?.ledgerOutage).toBeUndefined();
    expect(() => parseSimulateArgs(['--ledger-outage', '5'])).toThrow(/need --wire/);
    expect(() => parseSimulateArgs(['--wire', '--ledger-outage-every', '5'])).toThrow(/needs --ledger-outage/);
    expect(() => parseSimulateArgs(['--wire', '--ledger-outage', '-1'])).toThrow(UsageError);
  });
});
