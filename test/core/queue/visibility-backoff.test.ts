import { describe, expect, it } from 'vitest';
import { timingViolations } from '../../../functions/core/queue/timing-invariants';
import {
  backoffSeconds,
  backoffStepSeconds,
  DEFAULT_BACKOFF,
  longestBackoffTotalSeconds,
  shortestBackoffTotalSeconds,
} from '../../../functions/core/queue/visibility-backoff';

describe('visibility backoff of throttled records (pure)', () => {
  it('doubles from the base with each receive and stops at the cap', () => {
    const settings = { baseSeconds: 10, capSeconds: 100 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffStepSeconds(n, settings))).toEqual([10, 20, 40, 80, 100, 100]);
    expect(backoffStepSeconds(10_000, settings)).toBe(100);
  });

  it('jitters each step between half and all of it (equal jitter), so retries spread but always wait', () => {
    const settings = { baseSeconds: 10, capSeconds: 2_400 };
    expect(backoffSeconds(3, settings, () => 0)).toBe(20);
    expect(backoffSeconds(3, settings, () => 0.999_999)).toBe(40);
    expect(backoffSeconds(3, settings, () => 0.5)).toBe(30);
  });

  it('never asks SQS for more than its 12-hour visibility limit', () => {
    expect(backoffSeconds(50, { baseSeconds: 60, capSeconds: 100_000 }, () => 0.99)).toBe(43_200);
  });

  it('sums the shortest and the longest wait over a number of throttled receives', () => {
    const settings = { baseSeconds: 10, capSeconds: 40 };
    expect(longestBackoffTotalSeconds(4, settings)).toBe(10 + 20 + 40 + 40);
    expect(shortestBackoffTotalSeconds(4, settings)).toBe(55);
  });
});

describe('synth-time invariant: throttling reaches neither the DLQ nor expiry', () => {
  const base = { functionTimeoutSeconds: 30, claimTimeoutSeconds: 120, sendTimeoutMs: 10_000, ledgerRetentionSeconds: 30 * 86_400 };
  const queue = { visibilityTimeoutSeconds: 180, retentionSeconds: 4 * 86_400, deadLetterRetentionSeconds: 14 * 86_400, replayWindowSeconds: 0 };

  it('holds for the built-in backoff with maxReceiveCount 100 and 4 days of retention', () => {
    expect(timingViolations({ ...base, queue: { ...queue, maxReceiveCount: 100, backoff: DEFAULT_BACKOFF } })).toEqual([]);
  });

  it('fails if a message throttled for 24 hours would be dead-lettered, naming both values', () => {
    const violations = timingViolations({ ...base, queue: { ...queue, maxReceiveCount: 10, backoff: DEFAULT_BACKOFF } });
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/maxReceiveCount \(10\).*less than the 86400s an account can keep throttling/);
  });

  it('fails if the backoff outlasts the queue retention (a silent expiry), naming both values', () => {
    const violations = timingViolations({
      ...base,
      queue: { ...queue, retentionSeconds: 2 * 86_400, maxReceiveCount: 100, backoff: DEFAULT_BACKOFF },
    });
    expect(violations).toEqual([expect.stringMatching(/queue retention \(172800s\) must exceed the longest throttle backoff .*\(220950s\)/)]);
  });

  it('fails if the cap exceeds SQS\'s visibility limit', () => {
    const violations = timingViolations({
      ...base,
      queue: { ...queue, retentionSeconds: 14 * 86_400, maxReceiveCount: 20, backoff: { baseSeconds: 10, capSeconds: 50_000 } },
    });
    expect(violations.some((v) => /cap \(50000s\).*43200s/.test(v))).toBe(true);
  });

  it('honours a shorter throttle horizon', () => {
    expect(
      timingViolations({ ...base, queue: { ...queue, maxReceiveCount: 10, backoff: DEFAULT_BACKOFF, throttleHorizonSeconds: 1_800 } }),
    ).toEqual([]);
  });
});
