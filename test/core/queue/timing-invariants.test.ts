import { describe, expect, it } from 'vitest';
import { longestHoldSeconds } from '../../../functions/core/queue/quiet-hours-hold';
import { timingViolations, type TimingSettings } from '../../../functions/core/queue/timing-invariants';

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

/**
 * The throttle backoff at every edge: base = cap = 1 s, ten deferrals (maxReceiveCount 11) wait at
 * least 5 s (half of each 1 s step) and at most 10 s; the horizon is exactly 5 s and the queue keeps a
 * message 11 s.
 */
const BACKOFF_EDGE: Required<TimingSettings> = {
  ...EDGE,
  queue: { ...EDGE.queue, retentionSeconds: 11, maxReceiveCount: 11, backoff: { baseSeconds: 1, capSeconds: 1 }, throttleHorizonSeconds: 5 },
};
const withQueue = (queue: Partial<Required<TimingSettings>['queue']>): TimingSettings => ({ ...BACKOFF_EDGE, queue: { ...BACKOFF_EDGE.queue, ...queue } });
const BACKOFF_RANGE = /^throttle backoff base \([\d.]+s\) and cap \([\d.]+s\) must satisfy 1 <= base <= cap <= \d+s/;

describe('throttle backoff invariants, each at its edge', () => {
  it('a backoff exactly at every edge is safe (base = cap = 1 s, horizon = shortest wait, retention one second over the longest)', () => {
    expect(timingViolations(BACKOFF_EDGE)).toEqual([]);
  });

  it('a cap at the longest visibility SQS accepts after a receive (12 h less the function timeout and a margin) is allowed; one second over is refused', () => {
    const hold = longestHoldSeconds({ functionTimeoutSeconds: 60, batchingWindowSeconds: 0 });
    const atLimit = { maxReceiveCount: 2, backoff: { baseSeconds: hold, capSeconds: hold }, throttleHorizonSeconds: 21_000, retentionSeconds: hold + 1 };
    expect(timingViolations(withQueue(atLimit))).toEqual([]);
    const over = timingViolations(withQueue({ ...atLimit, backoff: { baseSeconds: hold, capSeconds: hold + 1 } }));
    expect(over.filter((v) => BACKOFF_RANGE.test(v))).toHaveLength(1);
    // A batching window is part of what SQS counts from the receive.
    const windowed = timingViolations({ ...withQueue(atLimit), queue: { ...withQueue(atLimit).queue!, batchingWindowSeconds: 1 } });
    expect(windowed.filter((v) => BACKOFF_RANGE.test(v))).toHaveLength(1);
  });

  it('a base under one second is refused', () => {
    const violations = timingViolations(withQueue({ backoff: { baseSeconds: 0.5, capSeconds: 1 } }));
    expect(violations.filter((v) => BACKOFF_RANGE.test(v))).toEqual([
      'throttle backoff base (0.5s) and cap (1s) must satisfy 1 <= base <= cap <= 43080s (SQS\'s 43200s visibility limit counts from the receive: ' +
        'less the batching window, the function timeout and a margin)',
    ]);
  });

  it('a base above the cap is refused', () => {
    const violations = timingViolations(withQueue({ backoff: { baseSeconds: 2, capSeconds: 1 }, retentionSeconds: 100 }));
    expect(violations.filter((v) => BACKOFF_RANGE.test(v))).toHaveLength(1);
  });

  it('a shortest wait one second under the throttle horizon is refused: the message would be dead-lettered unsent', () => {
    const violations = timingViolations(withQueue({ throttleHorizonSeconds: 6 }));
    expect(violations).toEqual([
      'maxReceiveCount (11) with throttle backoff base 1s, cap 1s waits at least 5s before the DLQ, less than the 6s an account can ' +
        'keep throttling: a throttled message would be dead-lettered unsent (raise maxReceiveCount or the backoff cap)',
    ]);
  });

  it('a queue retention equal to the longest backoff is refused: the message would expire unsent', () => {
    const violations = timingViolations(withQueue({ retentionSeconds: 10 }));
    expect(violations).toEqual([
      'queue retention (10s) must exceed the longest throttle backoff over maxReceiveCount 11 (10s), or a throttled message expires ' +
        'from the queue, unsent and unseen, before it can reach the DLQ',
    ]);
  });
});
