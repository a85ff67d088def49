import { describe, expect, it } from 'vitest';
import { LedgerOutageSchedule } from '../../local/aws/ledger-outage';
import type { WireRequest } from '../../local/aws/wire-operation';

const request = (key: string): WireRequest => ({
  service: 'dynamodb',
  operation: 'PutItem',
  ledgerWrite: 'claim',
  body: JSON.stringify({ Item: { sk: { S: key } } }),
});

describe('whole-ledger outages for the wire simulation', () => {
  it('places windows of the given length from the first request, the same for the same seed', () => {
    let now = 1_000_000;
    const schedule = new LedgerOutageSchedule(3, { seconds: 5, everySeconds: 10 }, () => now);
    const again = new LedgerOutageSchedule(3, { seconds: 5, everySeconds: 10 }, () => now);
    expect(schedule.isDown(now)).toBe(false);
    now += 60_000;
    schedule.isDown(now);
    again.isDown(1_000_000);
    again.isDown(now);
    const windows = schedule.startedWindows;
    expect(windows).toEqual(again.startedWindows);
    expect(windows.length).toBeGreaterThanOrEqual(3);
    for (const w of windows) expect(w.toMs - w.fromMs).toBe(5_000);
    // The first within half a gap of the first request, then gaps between 0.5x and 1.5x the mean.
    expect(windows[0]!.fromMs).toBeLessThanOrEqual(5_000);
    for (let i = 1; i < windows.length; i += 1) {
      const gap = windows[i]!.fromMs - windows[i - 1]!.toMs;
      expect(gap).toBeGreaterThanOrEqual(5_000);
      expect(gap).toBeLessThanOrEqual(15_000);
    }
    expect(schedule.isDown(1_000_000 + windows[0]!.fromMs)).toBe(true);
    expect(schedule.isDown(1_000_000 + windows[0]!.toMs)).toBe(false);
  });

  it('fails every request inside a window (one in five executed, its answer lost) and leaves the others to the other faults', () => {
    let now = 0;
    const schedule = new LedgerOutageSchedule(1, { seconds: 5, everySeconds: 10 }, () => now);
    const decide = schedule.decider(() => ({ kind: 'hang' }));
    expect(decide(request('k'))).toEqual({ kind: 'hang' }); // the first request: no outage yet
    now = 60_000;
    schedule.isDown(now);
    now = schedule.startedWindows[0]!.fromMs + 1;
    const faults = Array.from({ length: 500 }, (_, i) => decide(request(`k-${i}`))!.kind);
    expect(faults.every((k) => k === 'lose-response' || k === 'error-before' || k === 'reset-before')).toBe(true);
    const executed = faults.filter((k) => k === 'lose-response').length;
    expect(executed).toBeGreaterThan(60);
    expect(executed).toBeLessThan(140);
    expect(schedule.injected).toMatchObject({ executedAnswerLost: executed, refused: 500 - executed });
  });

  it('is off at 0 seconds', () => {
    const schedule = new LedgerOutageSchedule(1, { seconds: 0, everySeconds: 10 }, () => 5);
    expect(schedule.decider(() => undefined)(request('k'))).toBeUndefined();
    expect(schedule.injected.outages).toBe(0);
  });
});
