import type { Channel } from './idempotency-key';

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
 * maximum concurrency plus the reclaimer). That costs nothing per message; docs/design.md ("Sending at the
 * providers' pace") says why a shared DynamoDB bucket was not chosen.
 */
export class SendRateGovernor {
  private readonly nextSlot = new Map<Channel, number>();

  constructor(
    private readonly rates: ChannelRates,
    private readonly clock: PaceClock = realPaceClock,
  ) {
    for (const [channel, rate] of Object.entries(rates)) {
      if (!(rate > 0 && Number.isFinite(rate))) {
        throw new RangeError(`send rate for ${channel} must be a positive number, got ${String(rate)}`);
      }
    }
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
    const slot = Math.max(now, this.nextSlot.get(channel) ?? now);
    if (slot > latestStartMs) return false;
    this.nextSlot.set(channel, slot + 1000 / rate);
    if (slot > now) await this.clock.sleep(slot - now);
    return true;
  }
}

/** Each process's share of an account-wide rate. */
export function ratePerProcess(accountRates: ChannelRates, shares: number): ChannelRates {
  if (!(Number.isInteger(shares) && shares >= 1)) throw new RangeError(`rate shares must be a whole number >= 1, got ${shares}`);
  const perProcess: Partial<Record<Channel, number>> = {};
  for (const [channel, rate] of Object.entries(accountRates) as [Channel, number | undefined][]) {
    if (rate !== undefined) perProcess[channel] = rate / shares;
  }
  return perProcess;
}
