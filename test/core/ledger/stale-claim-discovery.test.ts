import { describe, expect, it } from 'vitest';
import { claimMustBeDiscoverable, type RedeliveryPolicy } from '../../../functions/core/ledger/stale-claim-discovery';

const DAY = 86_400_000;
const policy: RedeliveryPolicy = { maxReceiveCount: 5, retentionMs: 4 * DAY, longestRedeliveryGapMs: 180_000 };
const NOW = 10 * DAY;

describe('which claims enter the pending index', () => {
  it('a first receive far from the DLQ and from expiry is found by its redelivery, not by the index', () => {
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: NOW - 1000 }, policy, NOW)).toBe(false);
  });

  it('the receive before the last is not indexed; the last receive before the dead-letter queue is', () => {
    expect(claimMustBeDiscoverable({ receiveCount: 4, sentAtMs: NOW }, policy, NOW)).toBe(false);
    expect(claimMustBeDiscoverable({ receiveCount: 5, sentAtMs: NOW }, policy, NOW)).toBe(true);
    expect(claimMustBeDiscoverable({ receiveCount: 6, sentAtMs: NOW }, policy, NOW)).toBe(true);
  });

  it('a receive whose next redelivery could come after retention ends is indexed, at the exact boundary too', () => {
    const boundary = NOW - policy.retentionMs + policy.longestRedeliveryGapMs;
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: boundary - 1 }, policy, NOW)).toBe(true);
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: boundary }, policy, NOW)).toBe(true);
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: boundary + 1 }, policy, NOW)).toBe(false);
  });

  it('without the queue policy, the receive count or the send time, every claim is indexed', () => {
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: NOW }, undefined, NOW)).toBe(true);
    expect(claimMustBeDiscoverable(undefined, policy, NOW)).toBe(true);
    expect(claimMustBeDiscoverable({ receiveCount: 1, sentAtMs: undefined }, policy, NOW)).toBe(true);
  });
});
