import { afterEach, describe, expect, it, vi } from 'vitest';
import { persistently } from '../../functions/delivery/persistent-write';

afterEach(() => {
  vi.useRealTimers();
});

describe('an outcome or release write is tried in three rounds', () => {
  it('100 ms, then 200 ms apart, and the last error is let through', async () => {
    vi.useFakeTimers();
    const calls: number[] = [];
    const started = Date.now();
    const write = vi.fn(async () => {
      calls.push(Date.now() - started);
      throw new Error(`round ${calls.length} failed`);
    });
    const result = persistently(write).catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await result).toBe('round 3 failed');
    expect(calls).toEqual([0, 100, 300]);
  });

  it('a round that succeeds ends it with its answer', async () => {
    vi.useFakeTimers();
    let round = 0;
    const result = persistently(async () => {
      round += 1;
      if (round < 2) throw new Error('lost');
      return 'written';
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(await result).toBe('written');
    expect(round).toBe(2);
  });
});
