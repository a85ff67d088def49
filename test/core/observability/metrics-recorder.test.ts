import { describe, expect, it } from 'vitest';
import { InMemoryMetrics } from '../../../functions/core/observability/metrics-recorder';
import { METRIC } from '../../../functions/core/observability/metric-names';

describe('in-memory metrics (the local runner’s and the tests’ tally)', () => {
  it('adds up counts by name, and by name, channel and message class ("-" where not given)', () => {
    const metrics = new InMemoryMetrics();
    metrics.count(METRIC.Sent, { channel: 'sms', messageClass: 'otp' });
    metrics.count(METRIC.Sent, { channel: 'sms', messageClass: 'otp' }, 2);
    metrics.count(METRIC.Sent, { channel: 'email' });
    metrics.count(METRIC.InvalidEvent);
    expect(metrics.get(METRIC.Sent)).toBe(4);
    expect(metrics.get(METRIC.TransientRetry)).toBe(0);
    expect(Object.fromEntries(metrics.byDimensions)).toEqual({
      [`${METRIC.Sent}|sms|otp`]: 3,
      [`${METRIC.Sent}|email|-`]: 1,
      [`${METRIC.InvalidEvent}|-|-`]: 1,
    });
  });
});
