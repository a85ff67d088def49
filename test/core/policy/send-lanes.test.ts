import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BULK_CLASSES,
  DEFAULT_BULK_RATE_SHARE,
  laneClassMatcher,
  lanePace,
  laneOfMessageClass,
  throttleRetryPausesMs,
  URGENT_THROTTLE_RETRY_PAUSES_MS,
} from '../../../functions/core/policy/send-lanes';

describe('send lanes (pure)', () => {
  it('sends only the listed classes in bulk; anything else, a missing or non-string class included, urgent', () => {
    expect(laneOfMessageClass('marketing', ['marketing'])).toBe('bulk');
    for (const c of ['otp', 'transactional', 'Marketing', '', undefined, null, 3]) expect(laneOfMessageClass(c, ['marketing'])).toBe('urgent');
  });

  it('paces the urgent lane at the whole rate over its processes and the reclaimer, the bulk lane at its share, yielding', () => {
    const capacity = { urgentMaxConcurrency: 5, bulkMaxConcurrency: 10, bulkRateShare: DEFAULT_BULK_RATE_SHARE };
    expect(lanePace('urgent', capacity)).toEqual({ sendRateShares: 6, accountShare: 1, yieldsToThrottling: false });
    expect(lanePace('bulk', capacity)).toEqual({ sendRateShares: 10, accountShare: 0.8, yieldsToThrottling: true });
  });

  it('retries a throttled send in place only in the urgent lane', () => {
    expect(throttleRetryPausesMs('urgent')).toEqual([250, 500]);
    expect(throttleRetryPausesMs('urgent')).toBe(URGENT_THROTTLE_RETRY_PAUSES_MS);
    expect(throttleRetryPausesMs('bulk')).toEqual([]);
    expect(throttleRetryPausesMs(undefined)).toEqual([]);
  });

  it('sends marketing in bulk by default, and gives the filters of the two lanes exactly', () => {
    expect(DEFAULT_BULK_CLASSES).toEqual(['marketing']);
    expect(laneClassMatcher('bulk', ['marketing', 'digest'])).toEqual(['marketing', 'digest']);
    expect(laneClassMatcher('urgent', ['marketing', 'digest'])).toEqual([{ 'anything-but': ['marketing', 'digest'] }, { exists: false }]);
  });
});
