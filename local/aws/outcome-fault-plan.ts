import { uniformOf } from '../prng';
import type { LocalEventBridgeOptions, PutEventsCallFate, PutEventsEntry } from './local-eventbridge';

/** Probability (0..1) of each fault of the outcome publisher, per PutEvents call or entry. */
export interface OutcomeFaultRates {
  /** The publisher dies after the ledger write, before its PutEvents executes (nothing is put). @default 0.04 */
  readonly killBeforePutEvents: number;
  /** The publisher dies after its PutEvents executed, before its batch is acknowledged (its events are on the bus). @default 0.04 */
  readonly killAfterPutEvents: number;
  /** PutEvents answers an entry with `ThrottlingException` or `InternalFailure` (not put). @default 0.03 */
  readonly failedEntry: number;
}

export const OUTCOME_FAULT_KINDS = ['killBeforePutEvents', 'killAfterPutEvents', 'failedEntry'] as const satisfies readonly (keyof OutcomeFaultRates)[];
export type OutcomeFaultKind = (typeof OUTCOME_FAULT_KINDS)[number];

export const DEFAULT_OUTCOME_FAULTS: OutcomeFaultRates = { killBeforePutEvents: 0.04, killAfterPutEvents: 0.04, failedEntry: 0.03 };

/** The per-entry errors PutEvents documents as worth retrying (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevents.html). */
const RETRYABLE_ENTRY_ERRORS = ['ThrottlingException', 'InternalFailure'] as const;

/**
 * Seeded faults of the outcome publisher, at the wire (the local EventBridge's answers), as {@link WireFaultPlan}
 * draws the sender's: the n-th call whose first entry is one outcome draws uniform(seed, kind, outcomeId, n), and
 * each kind fires at most once per outcome, so every batch gets through in the end. Kills end the invocation as
 * Lambda's crash or timeout would (the local event source mapping retries its batch).
 */
export class OutcomeFaultPlan {
  private readonly opportunities = new Map<string, number>();
  private readonly fired = new Set<string>();
  readonly injected: Record<OutcomeFaultKind, number> = { killBeforePutEvents: 0, killAfterPutEvents: 0, failedEntry: 0 };
  /** The PutEvents calls after which the publisher was killed (their entries are on the bus). */
  readonly killedAfterCalls = new Set<number>();

  constructor(
    readonly seed: number,
    readonly rates: OutcomeFaultRates,
  ) {}

  /** The local EventBridge's answers under this plan. */
  busFaults(): Pick<LocalEventBridgeOptions, 'callFate' | 'entryFate'> {
    return {
      callFate: (entries, call) => this.callFate(entries, call),
      entryFate: (entry) => {
        const outcomeId = outcomeIdOf(entry);
        if (!this.roll('failedEntry', outcomeId)) return undefined;
        return RETRYABLE_ENTRY_ERRORS[Math.floor(uniformOf(this.seed, 'entry-error', outcomeId) * RETRYABLE_ENTRY_ERRORS.length)];
      },
    };
  }

  private callFate(entries: readonly PutEventsEntry[], call: number): PutEventsCallFate {
    const first = entries[0] ? outcomeIdOf(entries[0]) : 'none';
    if (this.roll('killBeforePutEvents', first)) return 'kill-before';
    if (this.roll('killAfterPutEvents', first)) {
      this.killedAfterCalls.add(call);
      return 'kill-after';
    }
    return 'answer';
  }

  private roll(kind: OutcomeFaultKind, outcomeId: string): boolean {
    const rate = this.rates[kind];
    if (!(rate > 0)) return false;
    const id = `${kind}|${outcomeId}`;
    const n = this.opportunities.get(id) ?? 0;
    this.opportunities.set(id, n + 1);
    if (this.fired.has(id) || uniformOf(this.seed, kind, outcomeId, n) >= rate) return false;
    this.fired.add(id);
    this.injected[kind] += 1;
    return true;
  }
}

function outcomeIdOf(entry: PutEventsEntry): string {
  try {
    const id = (JSON.parse(entry.Detail ?? '{}') as { outcomeId?: unknown }).outcomeId;
    return typeof id === 'string' ? id : 'no-outcome-id';
  } catch {
    return 'no-outcome-id';
  }
}
