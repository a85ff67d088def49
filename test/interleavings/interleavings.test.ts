import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { useTestLedger } from '../support/ledger-server';
import { runSchedule, type ScheduleResult } from './interleaving-model';
import { NO_FALLBACK, scenarioArbitrary } from './scenario';

/**
 * The model-based interleaving run: three workers, the reclaimer and the status Lambda on six
 * messages (two per class) against the real ledger adapter on dynalite and the real delivery
 * code, every port await ordered by fast-check's scheduler, with faults. `npm test` runs the
 * bounded size; `npm run check:interleavings` sets INTERLEAVING_RUNS for the long one.
 */
const RUNS = Number(process.env.INTERLEAVING_RUNS ?? 250);
/** Replay a reported failure: the seed and path fast-check printed. */
const SEED = process.env.INTERLEAVING_SEED === undefined ? undefined : Number(process.env.INTERLEAVING_SEED);
const PATH = process.env.INTERLEAVING_PATH;
const db = useTestLedger();
const requestHandler = ledgerClientConfig().requestHandler;

beforeAll(() => {
  // Only the waits behind an SDK retry or an outcome write's pause: fired at once when nothing else can move.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterAll(() => {
  vi.useRealTimers();
  requestHandler.destroy();
});

/**
 * One schedule of the run, replayed alone: a counterexample the run found, kept as its seed and path. Those found
 * before the scenario drew `lateProofs` (its last field) replay without them, so their schedule is the one they caught.
 */
const replay = (seed: number, path: string, { lateProofs = false, fallback = false }: { readonly lateProofs?: boolean; readonly fallback?: boolean } = {}) =>
  fc.assert(
    fc.asyncProperty(fc.scheduler(), scenarioArbitrary, async (s, drawn) => {
      // Fallback joined the model after the first named regressions here: they replay without it, as they were found.
      const scenario = fallback ? drawn : { ...(lateProofs ? drawn : { ...drawn, lateProofs: [] }), fallback: NO_FALLBACK };
      const result = await runSchedule(s, scenario, { tableName: db.tableName, endpoint: db.endpoint, ledger: db.ledger, requestHandler, client: db.client });
      vi.clearAllTimers();
      expect(result.violations, `schedule:\n${result.schedule.join('\n')}`).toEqual([]);
    }),
    { seed, path, numRuns: 1, endOnFailure: true },
  );

describe('interleavings of senders, the reclaimer and the status Lambda on the real ledger', () => {
  // A SENT outcome kept through an outage (the sender cut off) was written later at the clock's time;
  // its own held copy, fenced on the same claim, then landed and moved resolvedAt back. The kept
  // outcome now carries the failed write's time and is the same request. Found as seed 1, path 183
  // before the workers carried lanes; in the lane model the same bug (the fix reverted by hand) fails
  // first at seed 1, path 66 ("no settled row changed"), which this replays.
  it('regression (seed 1, path 66): a kept outcome and a late copy of the failed one are the same write', () => replay(1, '66'), 60_000);
  // An environment cut off after its claim keeps its release; another environment takes the row over and still holds
  // it when the link comes back. A kept release read-and-re-fenced on the row's current claim released the other's
  // claim (seed 1, path 0); holdsUnsent matching the key alone took over the other's live claim and sent beside it
  // (seed 2, path 15). Both found once the model cut one environment off across a lease (docs/testing.md).
  it('regression (seed 1, path 0): a kept release stays fenced on its own claim, never on the row\'s current one', () => replay(1, '0'), 60_000);
  it('regression (seed 2, path 15): an environment takes back only its own unsent claim, never another environment\'s live one', () => replay(2, '15'), 60_000);

  // Channel fallback (issue 46): with the sender's fallback path sending without deciding again from the primary's row
  // (an otp request put for its window's end, received early), seed 2 failed at once ("a fallback only when the primary
  // certainly did not arrive"); with the fallback's key made per request, the same schedule failed ("a fallback is sent
  // under its own key", "no fallback lost").
  it('regression (seed 2, path 0): a fallback\'s request is decided again from the primary\'s row, and claims the one fallback key', () => replay(2, '0', { fallback: true }), 60_000);

  // An otp text accepted with its answer lost, resent at once and refused (an invalid number): FAILED, the ambiguity on
  // its row, and the e-mail went at once as if the text certainly had not arrived (primary-verdict.ts now reads a
  // refusal or a stop after an earlier attempt that may have gone as possibly delivered). Found by the first bounded
  // runs with fallback in the model: seed 4 path 40, seed 5 path 184, seed 6 path 40.
  it('regression (seed 4, path 40): a refusal after an attempt that may have gone is no certain verdict', () => replay(4, '40', { fallback: true }), 60_000);

  // Issue 52's regression (seed 1865858655, path 28: attempt 1's delivery reaching the status Lambda after attempt
  // 2's refusal) no longer replays that world since the model sends a refusal only for an attempt whose request
  // reached the provider: with sendProvenBy disabled it passed, and 400 random schedules found nothing. It is pinned
  // where it fails without the fix: test/status/proof-of-send.test.ts (SES and End User Messaging, either order).

  it(`${RUNS} schedules: no duplicate beyond class policy, no false SENT, no settled row changed, nothing dropped, never over a limit, every row within its bound`, async () => {
    const figures = {
      schedules: 0,
      orderings: new Set<string>(),
      faults: new Map<string, number>(),
      exercised: new Map<string, number>(),
      violations: 0,
      permittedResends: 0,
      gates: 0,
    };
    let firstFailure: ScheduleResult | undefined;
    const startedAt = performance.now();
    const report = () => {
      const seconds = (performance.now() - startedAt) / 1000;
      const faults = [...figures.faults.values()].reduce((a, b) => a + b, 0);
      console.log(
        [
          `interleavings: ${figures.schedules} schedules explored, ${figures.orderings.size} distinct orderings, ` +
            `${faults} faults injected, ${figures.violations} violations, ${figures.permittedResends} permitted resends after ambiguity, ` +
            `${(figures.gates / Math.max(1, figures.schedules)).toFixed(1)} scheduled awaits per schedule, ${seconds.toFixed(1)} s`,
          ...[...figures.faults].sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, n]) => `  ${kind}: ${n}`),
          'exercised:',
          ...[...figures.exercised].map(([what, n]) => `  ${what}: ${n}`),
        ].join('\n'),
      );
    };
    try {
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), scenarioArbitrary, async (s, scenario) => {
          const result = await runSchedule(s, scenario, { tableName: db.tableName, endpoint: db.endpoint, ledger: db.ledger, requestHandler, client: db.client });
          vi.clearAllTimers();
          figures.schedules += 1;
          figures.orderings.add(createHash('sha1').update(result.schedule.map(withoutRunId).join('\n')).digest('hex'));
          for (const [kind, n] of result.faults) figures.faults.set(kind, (figures.faults.get(kind) ?? 0) + n);
          for (const [what, n] of result.exercised) figures.exercised.set(what, (figures.exercised.get(what) ?? 0) + n);
          figures.permittedResends += result.permittedResends;
          figures.gates += result.schedule.length;
          if (result.violations.length > 0) {
            figures.violations += 1;
            firstFailure ??= result;
          }
          expect(result.violations, `schedule:\n${result.schedule.join('\n')}`).toEqual([]);
          if (figures.schedules % 1_000 === 0) report();
        }),
        // Shrinking replays hundreds of schedules on dynalite: asked for with INTERLEAVING_SHRINK=true.
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), ...(PATH ? { path: PATH } : {}), endOnFailure: process.env.INTERLEAVING_SHRINK !== 'true' },
      );
    } finally {
      report();
    }
    expect(firstFailure).toBeUndefined();
  }, Math.max(600_000, RUNS * 2_000));
});

function withoutRunId(label: string): string {
  return label.replace(/[0-9a-f]{6}\b/g, 'key');
}
