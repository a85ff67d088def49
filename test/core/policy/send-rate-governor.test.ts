import { describe, expect, it } from 'vitest';
import { ratePerProcess, SendRateGovernor, type PaceClock } from '../../../functions/core/policy/send-rate-governor';

/** A pace clock the test owns: one timeline, moved forward by whoever sleeps. */
class FakePaceClock implements PaceClock {
  current = 1_000_000;
  readonly now = () => this.current;
  readonly sleep = async (ms: number) => {
    this.current += ms;
  };
}

/** The most starts in any window of `windowMs`. */
function busiestWindow(starts: readonly number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[i]! - sorted[j]! >= windowMs) j += 1;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('send-rate governor (pure, fake pace clock)', () => {
  it('gives concurrent callers slots exactly 1000/rate ms apart, in arrival order, with no burst', async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 4 }, clock);
    const slots: number[] = [];
    const waits = Array.from({ length: 6 }, (_, i) =>
      governor.acquire('email', Number.MAX_SAFE_INTEGER).then(() => slots.push(i)),
    );
    await Promise.all(waits);
    expect(slots).toEqual([0, 1, 2, 3, 4, 5]);
    // The sixth caller's slot is 5 x 250 ms after the first.
    expect(clock.current - 1_000_000).toBe(1_250);
  });

  it('never exceeds the rate in any one-second window, across processes sharing the account rate', async () => {
    const accountRate = 20;
    const processes = 4;
    const starts: number[] = [];
    // Each process runs its own governor at its share; all start at the same instant.
    for (let p = 0; p < processes; p += 1) {
      let now = 0;
      const governor = new SendRateGovernor(ratePerProcess({ sms: accountRate }, processes), {
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
      });
      for (let i = 0; i < 50; i += 1) {
        await governor.acquire('sms', Number.MAX_SAFE_INTEGER);
        starts.push(now);
      }
    }
    expect(busiestWindow(starts, 1_000)).toBeLessThanOrEqual(accountRate);
    expect(starts).toHaveLength(200);
  });

  it('refuses, without waiting or taking the slot, a send whose slot would come after the latest start', async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ sms: 1 }, clock);
    expect(await governor.acquire('sms', clock.now())).toBe(true); // slot now
    expect(await governor.acquire('sms', clock.now() + 999)).toBe(false); // next slot in 1000 ms
    expect(clock.current).toBe(1_000_000);
    expect(await governor.acquire('sms', clock.now() + 1_000)).toBe(true); // the refused call took no slot
  });

  it('after idling, paces from now: no burst of the slots the idle gap left behind', async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ sms: 2 }, clock);
    for (let i = 0; i < 3; i += 1) await governor.acquire('sms', Number.MAX_SAFE_INTEGER);
    clock.current += 10_000; // idle for 10 s: 20 slots went by unused
    const idleEnd = clock.current;
    const starts: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      await governor.acquire('sms', Number.MAX_SAFE_INTEGER);
      starts.push(clock.current);
    }
    expect(starts).toEqual([0, 500, 1_000, 1_500, 2_000, 2_500].map((ms) => idleEnd + ms));
    expect(busiestWindow(starts, 1_000)).toBeLessThanOrEqual(2);
  });

  it('does not pace a channel without a rate', async () => {
    const governor = new SendRateGovernor({ email: 1 }, new FakePaceClock());
    for (let i = 0; i < 100; i += 1) expect(await governor.acquire('push', 0)).toBe(true);
    expect(governor.rateOf('push')).toBeUndefined();
  });

  it('takes a free slot at once, without a timer', async () => {
    const sleeps: number[] = [];
    const governor = new SendRateGovernor({ sms: 1 }, { now: () => 5_000, sleep: async (ms) => void sleeps.push(ms) });
    expect(await governor.acquire('sms', 5_000)).toBe(true);
    expect(sleeps).toEqual([]);
  });

  it('gives a single process the whole account rate', () => {
    expect(ratePerProcess({ email: 14, sms: 20 }, 1)).toEqual({ email: 14, sms: 20 });
  });

  it('splits an account rate evenly over the processes that may send at once', () => {
    expect(ratePerProcess({ email: 14, sms: 20 }, 11)).toEqual({ email: 14 / 11, sms: 20 / 11 });
    expect(() => ratePerProcess({ email: 14 }, 0)).toThrow(/whole number >= 1/);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects a rate of %s', (rate) => {
    expect(() => new SendRateGovernor({ email: rate })).toThrow(/positive number/);
  });

  it("gives a lane its share of the account before the split (the bulk lane's 0.9 over 10 processes)", () => {
    expect(ratePerProcess({ email: 20 }, 10, 0.9)).toEqual({ email: 1.8 });
    expect(() => ratePerProcess({ email: 20 }, 10, 0)).toThrow(/share of the account rate/);
    expect(() => ratePerProcess({ email: 20 }, 10, 1.5)).toThrow(/share of the account rate/);
  });
});

describe('send-rate governor yielding to throttling (the bulk lane)', () => {
  const YIELD = { floor: 0.125, recoveryMs: 30_000, holdMs: 1_000 };

  /** Gaps between consecutive slots of `count` acquisitions on e-mail. */
  async function gaps(governor: SendRateGovernor, clock: FakePaceClock, count: number): Promise<number[]> {
    const starts: number[] = [];
    for (let i = 0; i < count; i += 1) {
      await governor.acquire('email', Number.MAX_SAFE_INTEGER);
      starts.push(clock.current);
    }
    return starts.slice(1).map((start, i) => start - starts[i]!);
  }

  it('starts at a random point of its first interval, so processes that start together are out of phase', async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock, YIELD, () => 0.7);
    await governor.acquire('email', Number.MAX_SAFE_INTEGER);
    expect(clock.current - 1_000_000).toBe(70);
    const urgent = new SendRateGovernor({ email: 10 }, clock, undefined, () => 0.7);
    const before = clock.current;
    await urgent.acquire('email', Number.MAX_SAFE_INTEGER);
    expect(clock.current).toBe(before);
  });

  it('halves its rate on a throttling answer: slots twice as far apart', async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock, YIELD, () => 0);
    expect(await gaps(governor, clock, 3)).toEqual([100, 100]);
    governor.throttled('email');
    const after = await gaps(governor, clock, 3);
    // Half the rate, recovering by 1/30,000 of it per ms: about 200 ms apart.
    for (const gap of after) expect(gap).toBeGreaterThan(190);
  });

  it('counts the answers of one burst in flight once, within holdMs', () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock, YIELD, () => 0);
    for (let i = 0; i < 16; i += 1) governor.throttled('email');
    expect(governor.factorAt('email', clock.current)).toBe(0.5);
    clock.current += 1_000;
    governor.throttled('email');
    expect(governor.factorAt('email', clock.current)).toBeCloseTo((0.5 + 1_000 / 30_000) / 2, 10);
  });

  it('never falls below its floor, and recovers linearly to the full rate', () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock, YIELD);
    for (let i = 0; i < 10; i += 1) {
      governor.throttled('email');
      clock.current += 1_000;
    }
    const atFloor = clock.current - 1_000;
    expect(governor.factorAt('email', atFloor)).toBe(0.125);
    expect(governor.factorAt('email', atFloor + 15_000)).toBeCloseTo(0.625, 10);
    expect(governor.factorAt('email', atFloor + 30_000)).toBe(1);
    expect(governor.factorAt('email', atFloor + 300_000)).toBe(1);
  });

  it('is per channel: SMS throttling leaves the e-mail rate alone', () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10, sms: 10 }, clock, YIELD);
    governor.throttled('sms');
    expect(governor.factorAt('email', clock.current)).toBe(1);
    expect(governor.factorAt('sms', clock.current)).toBe(0.5);
  });

  it("an urgent lane's governor (no yield) keeps its rate through throttling answers", async () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock);
    governor.throttled('email');
    expect(governor.factorAt('email', clock.current)).toBe(1);
    expect(await gaps(governor, clock, 3)).toEqual([100, 100]);
  });

  it('accepts a floor of 1 (never slower), and ignores throttling on a channel it does not pace', () => {
    const clock = new FakePaceClock();
    const governor = new SendRateGovernor({ email: 10 }, clock, { floor: 1, recoveryMs: 1, holdMs: 0 });
    governor.throttled('email');
    expect(governor.factorAt('email', clock.current)).toBe(1);
    const paced = new SendRateGovernor({ email: 10 }, clock, YIELD);
    paced.throttled('push');
    expect(paced.factorAt('push', clock.current)).toBe(1);
  });

  it.each([
    { floor: 0, recoveryMs: 1, holdMs: 0 },
    { floor: 1.5, recoveryMs: 1, holdMs: 0 },
    { floor: 0.5, recoveryMs: 0, holdMs: 0 },
    { floor: 0.5, recoveryMs: 1, holdMs: -1 },
  ])('rejects the yield %o', (yielding) => {
    expect(() => new SendRateGovernor({ email: 1 }, new FakePaceClock(), yielding)).toThrow(/yield to throttling/);
  });
});
