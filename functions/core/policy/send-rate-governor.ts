import type { Channel } from '../event/idempotency-key';

/** Sends per second per channel that this process may make; a channel left out is not paced. */
export type ChannelRates = Readonly<Partial<Record<Channel, number>>>;

/** Real time for pacing: the ledger's clock may be a test's, but waiting takes real milliseconds. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realPaceClock: PaceClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Paces provider calls per channel at a fixed rate, with no burst: each call takes the next free
 * slot, `1000 / rate` ms after the previous one (virtual scheduling, as in GCRA), so concurrent
 * callers in one process are served in arrival order and never exceed the rate in any window.
 *
 * Across Lambda instances the account's rate is split statically: each process gets
 * `accountRate / shares`, where `shares` counts every process that may send at once (the sender's
 * maximum concurrency plus the reclaimer). That costs nothing per message; docs/design/sending-pace.md ("Sending at the
 * providers' pace") says why a shared DynamoDB bucket was not chosen.
 */
export class SendRateGovernor {
  private readonly nextSlot = new Map<Channel, number>();
  private readonly cuts = new Map<Channel, { readonly factor: number; readonly atMs: number }>();

  constructor(
    private readonly rates: ChannelRates,
    private readonly clock: PaceClock = realPaceClock,
    private readonly yielding?: YieldToThrottling,
    private readonly random: () => number = Math.random,
  ) {
    for (const [channel, rate] of Object.entries(rates)) {
      if (!(rate > 0 && Number.isFinite(rate))) {
        throw new RangeError(`send rate for ${channel} must be a positive number, got ${String(rate)}`);
      }
    }
    if (yielding && !(yielding.floor > 0 && yielding.floor <= 1 && yielding.recoveryMs > 0 && yielding.holdMs >= 0)) {
      throw new RangeError(`yield to throttling needs 0 < floor <= 1, recoveryMs > 0 and holdMs >= 0, got ${JSON.stringify(yielding)}`);
    }
  }

  /**
   * A provider throttled a send on `channel`. A yielding governor (the bulk lane's) halves its rate,
   * at most once per `holdMs` (the answers of one burst in flight count once), never below `floor`,
   * and climbs back to its full rate over `recoveryMs`; any other governor ignores it.
   */
  throttled(channel: Channel): void {
    if (!this.yielding || this.rates[channel] === undefined) return;
    const now = this.clock.now();
    const cut = this.cuts.get(channel);
    if (cut && now - cut.atMs < this.yielding.holdMs) return;
    this.cuts.set(channel, { factor: Math.max(this.yielding.floor, this.factorAt(channel, now) / 2), atMs: now });
  }

  /**
   * Where a channel's first slot lies. A yielding governor's is at a random point of its first interval:
   * a bulk lane's processes start together, and slots in phase would send in bursts of one per process.
   */
  private firstSlot(rate: number, now: number): number {
    return this.yielding ? now + this.random() * (1000 / rate) : now;
  }

  /** The share of its rate `channel` runs at now: 1, or less after throttling answers (yielding only). */
  factorAt(channel: Channel, nowMs: number): number {
    const cut = this.cuts.get(channel);
    if (!cut || !this.yielding) return 1;
    return Math.min(1, cut.factor + (nowMs - cut.atMs) / this.yielding.recoveryMs);
  }

  /** This process's rate for `channel` (sends per second), or undefined when it is not paced. */
  rateOf(channel: Channel): number | undefined {
    return this.rates[channel];
  }

  /**
   * Waits for a send slot on `channel`. Resolves `false` without waiting (and without taking a
   * slot) when the slot would come after `latestStartMs` (epoch ms on the pace clock).
   */
  async acquire(channel: Channel, latestStartMs: number): Promise<boolean> {
    const rate = this.rates[channel];
    if (rate === undefined) return true;
    const now = this.clock.now();
    const slot = Math.max(now, this.nextSlot.get(channel) ?? this.firstSlot(rate, now));
    if (slot > latestStartMs) return false;
    this.nextSlot.set(channel, slot + 1000 / (rate * this.factorAt(channel, slot)));
    if (slot > now) await this.clock.sleep(slot - now);
    return true;
  }
}

/**
 * How a bulk lane's governor gives way when the urgent lane's sends push the account past its rate:
 * multiplicative decrease on a throttling answer, linear recovery (as TCP does, without shared state).
 */
export interface YieldToThrottling {
  /** The lowest share of its rate it falls to (0 < floor <= 1). */
  readonly floor: number;
  /** Milliseconds from the floor back to the full rate. */
  readonly recoveryMs: number;
  /** Throttling answers within this many milliseconds of a cut count as the same one. */
  readonly holdMs: number;
}

/** The bulk lane's yield: to an eighth at most, back to full in 5 s, one cut per second. */
export const BULK_LANE_YIELD: YieldToThrottling = { floor: 0.125, recoveryMs: 5_000, holdMs: 1_000 };

/**
 * Each process's share of an account-wide rate: `accountShare` of it (its lane's share of the
 * account, 1 without lanes) split between `shares` processes.
 */
export function ratePerProcess(accountRates: ChannelRates, shares: number, accountShare = 1): ChannelRates {
  if (!(Number.isInteger(shares) && shares >= 1)) throw new RangeError(`rate shares must be a whole number >= 1, got ${shares}`);
  if (!(accountShare > 0 && accountShare <= 1)) throw new RangeError(`a lane's share of the account rate must be in (0, 1], got ${accountShare}`);
  const perProcess: Partial<Record<Channel, number>> = {};
  for (const [channel, rate] of Object.entries(accountRates) as [Channel, number | undefined][]) {
    if (rate !== undefined) perProcess[channel] = (rate * accountShare) / shares;
  }
  return perProcess;
}
