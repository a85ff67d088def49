import { uniformOf } from './prng';

/**
 * Probability (0..1) of each fault at each opportunity. A crash kills the whole simulated
 * execution environment at that point (see ExecutionEnvironment); the other faults are answers.
 */
export interface FaultRates {
  /** Crash just before the claim is written. @default 0 */
  readonly crashBeforeClaim: number;
  /** Crash right after a successful claim or takeover, before the provider call. @default 0 */
  readonly crashAfterClaim: number;
  /** Crash after the provider accepted the message, before the outcome is written. @default 0 */
  readonly crashAfterSend: number;
  /** Crash after the outcome is written, before the batch is acknowledged. @default 0 */
  readonly crashAfterOutcome: number;
  /** The provider call times out: half reach the provider (the answer is lost), half never arrive. @default 0 */
  readonly providerTimeout: number;
  /** The provider refuses for now (throttling): certainly not sent. @default 0 */
  readonly providerThrottle: number;
  /** The provider rejects the message permanently. @default 0 */
  readonly providerReject: number;
  /** A ledger request fails with ProvisionedThroughputExceededException (after SDK retries). @default 0 */
  readonly dynamoThrottle: number;
}

export type FaultKind = keyof FaultRates;

export const FAULT_KINDS: readonly FaultKind[] = [
  'crashBeforeClaim',
  'crashAfterClaim',
  'crashAfterSend',
  'crashAfterOutcome',
  'providerTimeout',
  'providerThrottle',
  'providerReject',
  'dynamoThrottle',
];

export const NO_FAULTS: FaultRates = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as unknown as FaultRates;

/** Every fault at the same rate. */
export function allFaults(rate: number): FaultRates {
  return Object.fromEntries(FAULT_KINDS.map((k) => [k, rate])) as unknown as FaultRates;
}

/**
 * Decides faults reproducibly. The n-th opportunity for fault `kind` on message `key` fires
 * iff uniform(seed, kind, site, key, n) < rate, so the decision depends on the message and how
 * often it got that far, never on which worker got there first or on timing. Each kind fires at
 * most `maxPerKeyAndKind` times per message and site, so every message eventually gets through.
 *
 * It also keeps the independent evidence the report needs: which provider calls reached the
 * provider without their answer being recorded (the only calls a `resend` class may repeat).
 */
export class FaultPlan {
  private readonly opportunities = new Map<string, number>();
  private readonly fired = new Map<string, number>();
  readonly injected: Record<FaultKind, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  /** Provider calls per key that reached the provider but whose answer was lost or never recorded. */
  readonly unrecordedReaches = new Map<string, number>();
  /** Keys the provider rejected permanently. */
  readonly rejected = new Set<string>();

  constructor(
    readonly seed: number,
    readonly rates: FaultRates,
    readonly maxPerKeyAndKind = 1,
  ) {}

  /** Whether `kind` fires now for `key`. `site` separates opportunities of one kind at different calls. */
  roll(kind: FaultKind, key: string, site = ''): boolean {
    const rate = this.rates[kind];
    if (!(rate > 0)) return false;
    const id = `${kind}|${site}|${key}`;
    const n = this.opportunities.get(id) ?? 0;
    this.opportunities.set(id, n + 1);
    const firedKey = id;
    if ((this.fired.get(firedKey) ?? 0) >= this.maxPerKeyAndKind) return false;
    if (uniformOf(this.seed, kind, site, key, n) >= rate) return false;
    this.fired.set(firedKey, (this.fired.get(firedKey) ?? 0) + 1);
    this.injected[kind] += 1;
    return true;
  }

  /** A second, independent coin for the same opportunity (e.g. whether a timed-out call arrived). */
  coin(kind: FaultKind, key: string): boolean {
    return uniformOf(this.seed, kind, 'coin', key, this.opportunities.get(`${kind}||${key}`) ?? 0) < 0.5;
  }

  noteUnrecordedReach(key: string): void {
    this.unrecordedReaches.set(key, (this.unrecordedReaches.get(key) ?? 0) + 1);
  }

  get totalInjected(): number {
    return FAULT_KINDS.reduce((sum, k) => sum + this.injected[k], 0);
  }
}
