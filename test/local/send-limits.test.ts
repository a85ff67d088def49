import { describe, expect, it } from 'vitest';
import { SendLimits } from '../../local/aws/send-limits';

describe('SendLimits (rate and daily quota of the local providers)', () => {
  it('accepts everything when no limit is set', () => {
    const limits = new SendLimits();
    expect(Array.from({ length: 100 }, () => limits.admit()).every((v) => v === 'accepted')).toBe(true);
  });

  it('refuses above maxPerSecond in a rolling second, without counting the refusal', () => {
    let nowMs = 0;
    const limits = new SendLimits({ maxPerSecond: 2, clock: () => nowMs });
    expect([limits.admit(), limits.admit(), limits.admit()]).toEqual(['accepted', 'accepted', 'rate-exceeded']);
    nowMs = 999;
    expect(limits.admit()).toBe('rate-exceeded');
    nowMs = 1_000;
    expect([limits.admit(), limits.admit(), limits.admit()]).toEqual(['accepted', 'accepted', 'rate-exceeded']);
  });

  it('refuses above the daily quota until the oldest accepted send is a day old', () => {
    let nowMs = 0;
    const limits = new SendLimits({ dailyQuota: 2, clock: () => nowMs });
    limits.admit();
    nowMs = 10;
    limits.admit();
    nowMs = 86_399_999;
    expect(limits.admit()).toBe('daily-quota-exceeded');
    nowMs = 86_400_000;
    expect(limits.admit()).toBe('accepted');
  });

  it('reports every invalid limit with the value it was given', () => {
    expect(() => new SendLimits({ maxPerSecond: 0, dailyQuota: 1.5 })).toThrow(
      'Invalid send limits: maxPerSecond must be a positive integer (got 0); dailyQuota must be a positive integer (got 1.5)',
    );
  });
});
