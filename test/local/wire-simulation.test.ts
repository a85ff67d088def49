import { describe, expect, it } from 'vitest';
import { WIRE_FAULT_KINDS, wireFaults } from '../../local/aws/wire-fault-plan';
import { wireVerdictHolds } from '../../local/aws/wire-verdict';
import { runWireSimulation } from '../../local/wire-simulation';

describe('the wire-level simulation', () => {
  it(
    'drives the Lambda sender through every wire fault and whole-ledger outages and keeps the promise, judged at the providers',
    async () => {
      // Whole-ledger outages on top: what an attempt knows must outlive them.
      const report = await runWireSimulation({ events: 250, seed: 7, faults: wireFaults(0.04), ledgerOutage: { seconds: 4, everySeconds: 10 } });
      for (const kind of WIRE_FAULT_KINDS) expect(report.injected[kind], kind).toBeGreaterThan(0);
      expect(report.verdict.messages).toBeGreaterThan(250);
      expect(report.verdict.unexplainedDuplicates, JSON.stringify(report.traces)).toBe(0);
      expect(report.verdict.lost).toBe(0);
      expect(report.verdict.unknownWithoutAmbiguity).toBe(0);
      expect(report.ledgerOutages.refused).toBeGreaterThan(0);
      expect(report.verdict.possibleDuplicatesWithoutAmbiguity, JSON.stringify(report.verdict.examples.counted)).toBe(0);
      expect(report.verdict.failedWithoutRejection).toBe(0);
      expect(report.deadLettered).toBe(0);
      expect(wireVerdictHolds(report.verdict)).toBe(true);
      // Every resent push carried its key as collapse id and tag: the provider may see duplicates, the devices show none.
      expect(report.pushDuplicates.deviceVisible).toBe(0);
      expect(report.pushDuplicates.hiddenByOtherMessages).toBe(0);
      expect(report.pushDuplicates.providerSide).toBeLessThanOrEqual(report.verdict.explainedDuplicates);
      // Only rejections make FAILED rows (a rejection answered after the sender's own timeout reads as ambiguous).
      expect(report.verdict.states.FAILED).toBeLessThanOrEqual(report.injected.providerRejection + report.plannedFailures.failed);
      expect(report.verdict.states.FAILED).toBeGreaterThan(0);
    },
    240_000,
  );
});
