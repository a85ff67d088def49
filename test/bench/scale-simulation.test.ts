import { describe, expect, it } from 'vitest';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { numberBlockOf } from '../../functions/core/policy/message-limits';
import { predict } from '../../bench/scale/scale-prediction';
import { summariseScale } from '../../bench/scale/scale-report';
import { steadyRate, type ScaleRound } from '../../bench/scale/scale-round';
import { SCALE_SETTINGS } from '../../bench/scale/scale-settings';
import { scaleWorkload } from '../../bench/scale/scale-workload';

const ZERO_COSTS = { ledgerOverheadMs: 0, providerOverheadMs: 0, cpuMsPerMessage: 0 };

describe('the scale simulation\'s workload', () => {
  it('gives every event its own recipient, address and number block, so no limit refuses one, and queues duplicates last', () => {
    const w = scaleWorkload({ kind: { templateId: 'login-code', messageClass: 'otp', channel: 'sms' }, messages: 300, duplicates: 30, runTag: 't' });
    expect(w.items).toHaveLength(330);
    expect(w.items.slice(0, 300).every((i) => !i.duplicate)).toBe(true);
    expect(w.items.slice(300).map((i) => i.eventId)).toEqual(w.events.slice(0, 30).map((e) => e.eventId));
    const recipients = w.events.map((e) => e.recipients[0]!);
    expect(new Set(recipients.map((r) => r.recipientId)).size).toBe(300);
    expect(new Set(recipients.map((r) => numberBlockOf(r.phone!))).size).toBe(300);
    // Each body is an event the sender accepts.
    for (const item of w.items.slice(0, 5)) expect(parseNotificationBody(item.body).event.recipients[0]?.channels).toEqual(['sms']);
  });
});

describe('the steady rate', () => {
  it('counts acknowledgements between the 10th and 90th percentile, leaving the first and last waves out', () => {
    // 10 invocations of 10 records, one every 100 ms, then a straggler 2 s later.
    const invocations = Array.from({ length: 10 }, (_, i) => ({ endedAtMs: 1000 + i * 100, records: 10, failedRecords: 0 }));
    expect(steadyRate(invocations)).toBeCloseTo((80 * 1000) / 800, 6);
    expect(steadyRate([...invocations, { endedAtMs: 4000, records: 1, failedRecords: 0 }])).toBeCloseTo(100, 0);
    expect(steadyRate([{ endedAtMs: 1, records: 10, failedRecords: 10 }])).toBe(0);
  });
});

describe('the prediction and the verdict', () => {
  it('predicts the units of each path: a transactional e-mail 3, a producer duplicate 1, averaged over the records', () => {
    const duplicates = SCALE_SETTINGS.find((s) => s.id === 'producer-duplicates')!;
    const p = predict(duplicates, ZERO_COSTS, 200, 100);
    expect(p.paths).toEqual([
      { path: 'delivered', messages: 200, writeUnits: 3, readUnits: 0 },
      { path: 'producer-duplicate', messages: 100, writeUnits: 1, readUnits: 0 },
    ]);
    expect(p.writeUnitsPerMessage).toBeCloseTo(700 / 300, 9);
  });

  it('binds the lane at this machine\'s one event loop when its CPU per message is the limit', () => {
    const baseline = SCALE_SETTINGS.find((s) => s.id === 'baseline')!;
    expect(predict(baseline, { ...ZERO_COSTS, cpuMsPerMessage: 50 }, 100, 0)).toMatchObject({ messagesPerSecond: 20, binding: "this machine's one event loop" });
  });

  it('counts a setting within 15% only over rounds where the machine was not the limit, and units equal only if every round\'s are', () => {
    const baseline = SCALE_SETTINGS.find((s) => s.id === 'baseline')!;
    const round = (ratio: number, limits: string[], writeUnitsPerMessage = 3): ScaleRound =>
      ({
        setting: 'baseline',
        predicted: { messagesPerSecond: 100, writeUnitsPerMessage: 3, readUnitsPerMessage: 0 },
        measured: { messagesPerSecond: 100 * ratio, writeUnitsPerMessage, readUnitsPerMessage: 0, lost: 0, unexplainedDuplicates: 0 },
        ratio,
        machine: { limits },
      }) as unknown as ScaleRound;
    const ok = summariseScale([baseline], [round(0.9, []), round(0.95, []), round(0.5, ['machine 99% busy (limit 80%)'])]);
    expect(ok.settings[0]).toMatchObject({ counted: 2, withinTolerance: true, unitsEqual: true });
    // The nearest-rank median (local/stats.ts), as every bench here reports it.
    expect(ok.settings[0]?.ratio.median).toBe(0.9);
    expect(summariseScale([baseline], [round(0.8, []), round(0.84, [])]).settings[0]?.withinTolerance).toBe(false);
    expect(summariseScale([baseline], [round(1, [], 3), round(1, [], 3.01)]).settings[0]?.unitsEqual).toBe(false);
    expect(summariseScale([baseline], [round(1, ['machine 99% busy (limit 80%)'])]).settings[0]?.withinTolerance).toBe(false);
  });
});
