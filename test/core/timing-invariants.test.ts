import { describe, expect, it } from 'vitest';
import { timingViolations, type TimingSettings } from '../../functions/core/timing-invariants';

/** A safe setting with every rule at its edge: each case below moves one value across one edge. */
const EDGE: Required<TimingSettings> = {
  functionTimeoutSeconds: 60,
  claimTimeoutSeconds: 61,
  sendTimeoutMs: 59_999,
  ledgerRetentionSeconds: 4 * 86_400 + 14 * 86_400 + 7 * 86_400,
  queue: {
    visibilityTimeoutSeconds: 360,
    retentionSeconds: 4 * 86_400,
    deadLetterRetentionSeconds: 14 * 86_400,
    replayWindowSeconds: 7 * 86_400,
  },
};

describe('timing invariants, each at its edge', () => {
  it('a setting exactly at every edge is safe', () => {
    expect(timingViolations(EDGE)).toEqual([]);
    expect(timingViolations({ ...EDGE, queue: undefined } as TimingSettings)).toEqual([]);
  });

  it('a claim timeout equal to the function timeout is refused, naming both', () => {
    const violations = timingViolations({ ...EDGE, claimTimeoutSeconds: 60 });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/^claim timeout \(60s\) must exceed the sender function timeout \(60s\)/);
    expect(violations[0]).toMatch(/its message is sent twice$/);
  });

  it('a send timeout equal to the function timeout is refused, naming both', () => {
    const violations = timingViolations({ ...EDGE, sendTimeoutMs: 60_000 });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/^send timeout \(60000ms\) must be below the sender function timeout \(60000ms\)/);
    expect(violations[0]).toMatch(/before it can record the outcome$/);
  });

  it('a visibility timeout one second under six function timeouts is refused, naming both', () => {
    const violations = timingViolations({ ...EDGE, queue: { ...EDGE.queue, visibilityTimeoutSeconds: 359 } });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/^queue visibility timeout \(359s\) must be at least 6 x the sender function timeout \(6 x 60s = 360s\)/);
  });

  it('a ledger retention one second short of queue + DLQ retention + replay window is refused, naming each', () => {
    const violations = timingViolations({ ...EDGE, ledgerRetentionSeconds: EDGE.ledgerRetentionSeconds - 1 });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(
      /^ledger retention \(2159999s\) must cover queue retention \(345600s\) \+ DLQ retention \(1209600s\) \+ replay window \(604800s\) = 2160000s/,
    );
    expect(violations[0]).toMatch(/is sent again$/);
  });

  it('without queue settings (at cold start) only the function-level rules apply', () => {
    const unsafeQueue = { ...EDGE.queue, visibilityTimeoutSeconds: 1 };
    expect(timingViolations({ ...EDGE, queue: unsafeQueue, ledgerRetentionSeconds: 1 })).toHaveLength(2);
    expect(timingViolations({ ...EDGE, queue: undefined, ledgerRetentionSeconds: 1 } as TimingSettings)).toEqual([]);
  });

  it('reports every broken rule at once', () => {
    const all = timingViolations({
      functionTimeoutSeconds: 60,
      claimTimeoutSeconds: 30,
      sendTimeoutMs: 90_000,
      ledgerRetentionSeconds: 1,
      queue: { visibilityTimeoutSeconds: 30, retentionSeconds: 10, deadLetterRetentionSeconds: 10, replayWindowSeconds: 10 },
    });
    expect(all.map((v) => v.split(' (')[0])).toEqual(['claim timeout', 'send timeout', 'queue visibility timeout', 'ledger retention']);
  });
});
