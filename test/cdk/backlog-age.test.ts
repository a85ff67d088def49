import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF } from '../../functions/core/queue/visibility-backoff';
import { backlogLossHorizonSeconds, defaultBacklogAgeAlarmSeconds } from '../../lib/backlog-age';

const DEFAULT_QUEUE = { retentionSeconds: 4 * 86_400, maxReceiveCount: 100, backoff: DEFAULT_BACKOFF };

describe('backlog loss horizon', () => {
  it('is the least time to the DLQ of a message deferred on every receive, when that comes before expiry', () => {
    // Steps 10 s .. 1,280 s (2,550 s), then 91 x 2,400 s: 220,950 s at the longest, half of it at the shortest.
    expect(backlogLossHorizonSeconds(DEFAULT_QUEUE)).toBe(110_475);
  });

  it('is the queue retention when that comes first', () => {
    expect(backlogLossHorizonSeconds({ ...DEFAULT_QUEUE, retentionSeconds: 86_400 })).toBe(86_400);
  });

  it('sets the default alarm threshold at a quarter of it, in whole seconds', () => {
    expect(defaultBacklogAgeAlarmSeconds(DEFAULT_QUEUE)).toBe(27_618);
    expect(defaultBacklogAgeAlarmSeconds({ ...DEFAULT_QUEUE, retentionSeconds: 86_400 })).toBe(21_600);
  });
});
