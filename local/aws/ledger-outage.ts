import { uniformOf } from '../prng';
import { internalErrorResponse } from './aws-error-shapes';
import type { FaultDecider, WireFault } from './wire-fault-proxy';
import { ledgerKeyOf } from './wire-fault-plan';

/** Outages of the whole ledger: every DynamoDB request fails while one lasts. */
export interface LedgerOutageOptions {
  /** How long each outage lasts (s); 0 turns them off. */
  readonly seconds: number;
  /** Mean time from the end of one outage to the start of the next (s); each gap is drawn from 0.5x to 1.5x it, the first from 0 to 0.5x. */
  readonly everySeconds: number;
}

/** What the outages did. */
export interface LedgerOutageCounts {
  /** Outages started so far. */
  readonly outages: number;
  /** Requests refused before executing (a 500, or the connection reset). */
  readonly refused: number;
  /** Requests executed whose answer was lost: the claim that was written with nobody told. */
  readonly executedAnswerLost: number;
}

/** Of the requests an outage fails, the share that executed first (the rest are refused before executing). */
const EXECUTED_SHARE = 0.2;

/**
 * Seeded windows, placed from the first ledger request on, in which every ledger request fails, as in a regional
 * DynamoDB incident: most are refused (half a 500, half a reset connection), and one in five
 * executed before its answer was lost. Outside the windows it decides nothing, so the other wire
 * faults still apply. The windows depend on the seed alone; which requests fall into them depends
 * on the run's timing, as an outage does.
 */
export class LedgerOutageSchedule {
  private readonly counts = { refused: 0, executedAnswerLost: 0 };
  private readonly windows: { startMs: number; endMs: number }[] = [];
  private readonly seen = new Map<string, number>();

  /** The first request's time: the windows are placed from there. */
  private startedAtMs: number | undefined;

  constructor(
    private readonly seed: number,
    private readonly options: LedgerOutageOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get injected(): LedgerOutageCounts {
    return { outages: this.startedWindows.length, ...this.counts };
  }

  /** The outage windows started so far, relative to the run's start (ms). */
  get startedWindows(): readonly { readonly fromMs: number; readonly toMs: number }[] {
    const origin = this.startedAtMs ?? 0;
    return this.windows.filter((w) => w.startMs <= this.now()).map((w) => ({ fromMs: w.startMs - origin, toMs: w.endMs - origin }));
  }

  /** Whether the ledger is down at `atMs`. */
  isDown(atMs: number): boolean {
    if (!(this.options.seconds > 0)) return false;
    this.startedAtMs ??= atMs;
    while ((this.windows.at(-1)?.endMs ?? this.startedAtMs) <= atMs) this.windows.push(this.nextWindow(this.startedAtMs));
    return this.windows.some((w) => w.startMs <= atMs && atMs < w.endMs);
  }

  /** Wraps a DynamoDB decider: inside an outage every request fails, outside `otherwise` decides. */
  decider(otherwise: FaultDecider): FaultDecider {
    return (request) => (this.isDown(this.now()) ? this.fault(ledgerKeyOf(request), request.ledgerWrite ?? request.operation) : otherwise(request));
  }

  private fault(key: string, site: string): WireFault {
    const id = `${site}|${key}`;
    const n = this.seen.get(id) ?? 0;
    this.seen.set(id, n + 1);
    const roll = uniformOf(this.seed, 'ledger-outage', id, n);
    if (roll < EXECUTED_SHARE) {
      this.counts.executedAnswerLost += 1;
      return { kind: 'lose-response' };
    }
    this.counts.refused += 1;
    return roll < EXECUTED_SHARE + (1 - EXECUTED_SHARE) / 2 ? { kind: 'error-before', response: internalErrorResponse('dynamodb') } : { kind: 'reset-before' };
  }

  private nextWindow(origin: number): { startMs: number; endMs: number } {
    const i = this.windows.length;
    const previousEnd = this.windows.at(-1)?.endMs ?? origin;
    // The first within half a gap of the first request (a run's busiest seconds), then 0.5x to 1.5x the mean apart.
    const gapMs = this.options.everySeconds * 1000 * (i === 0 ? 0.5 : 1) * (i === 0 ? uniformOf(this.seed, 'ledger-outage-gap', i) : 0.5 + uniformOf(this.seed, 'ledger-outage-gap', i));
    const startMs = previousEnd + Math.round(gapMs);
    return { startMs, endMs: startMs + this.options.seconds * 1000 };
  }
}
