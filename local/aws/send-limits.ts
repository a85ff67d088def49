/** Account limits a local provider can enforce, as SES and SNS do. Both are off by default. */
export interface SendLimitOptions {
  /** Accepted sends per second (a rolling second); above it the server answers its throttling error. @default unlimited */
  readonly maxPerSecond?: number;
  /** Accepted sends per rolling 24 hours; above it the server answers its quota error. @default unlimited */
  readonly dailyQuota?: number;
  /** Milliseconds since the epoch. @default Date.now */
  readonly clock?: () => number;
}

/** Whether a send may be accepted now, and if not, which limit refused it. */
export type LimitVerdict = 'accepted' | 'rate-exceeded' | 'daily-quota-exceeded';

const SECOND_MS = 1_000;
const DAY_MS = 86_400_000;

/**
 * Counts accepted sends in a rolling second and a rolling day. A refused send is not counted,
 * as on SES and SNS: throttled requests do not use up the quota.
 */
export class SendLimits {
  private readonly acceptedAt: number[] = [];
  private readonly clock: () => number;

  constructor(private readonly options: SendLimitOptions = {}) {
    const problems = [
      ['maxPerSecond', options.maxPerSecond],
      ['dailyQuota', options.dailyQuota],
    ]
      .filter(([, v]) => v !== undefined && !(Number.isInteger(v) && Number(v) > 0))
      .map(([name, v]) => `${String(name)} must be a positive integer (got ${String(v)})`);
    if (problems.length > 0) throw new Error(`Invalid send limits: ${problems.join('; ')}`);
    this.clock = options.clock ?? Date.now;
  }

  /** Decides for one send and counts it when accepted. */
  admit(): LimitVerdict {
    const nowMs = this.clock();
    while (this.acceptedAt.length > 0 && (this.acceptedAt[0] ?? nowMs) <= nowMs - DAY_MS) this.acceptedAt.shift();
    const { dailyQuota, maxPerSecond } = this.options;
    if (dailyQuota !== undefined && this.acceptedAt.length >= dailyQuota) return 'daily-quota-exceeded';
    if (maxPerSecond !== undefined && this.countSince(nowMs - SECOND_MS) >= maxPerSecond) return 'rate-exceeded';
    this.acceptedAt.push(nowMs);
    return 'accepted';
  }

  private countSince(fromMs: number): number {
    let count = 0;
    for (let i = this.acceptedAt.length - 1; i >= 0 && (this.acceptedAt[i] ?? 0) > fromMs; i -= 1) count += 1;
    return count;
  }
}
