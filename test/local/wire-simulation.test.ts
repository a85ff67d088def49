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
      // Only rejections make FAILED rows (a rejection answered after the sender's own timeout reads as ambiguous).
      expect(report.verdict.states.FAILED).toBeLessThanOrEqual(report.injected.providerRejection + report.plannedFailures.failed);
      expect(report.verdict.states.FAILED).toBeGreaterThan(0);
    },
    240_000,
  );

  it(
    'with texts through End User Messaging, its events late and lost too, keeps the promise and settles SMS ambiguities by evidence',
    async () => {
      const report = await runWireSimulation({ events: 150, seed: 11, faults: wireFaults(0.04), smsProvider: 'end-user-messaging', smsEventFaults: { late: 0.1, lost: 0.1 } });
      expect(report.verdict.unexplainedDuplicates, JSON.stringify(report.traces)).toBe(0);
      expect(report.verdict.lost).toBe(0);
      expect(report.verdict.unknownWithoutAmbiguity).toBe(0);
      expect(report.verdict.possibleDuplicatesWithoutAmbiguity, JSON.stringify(report.verdict.examples.counted)).toBe(0);
      expect(report.sms.eventsLate + report.sms.eventsLost).toBeGreaterThan(0);
      // Texts went through the stand-in (its requests crossed the proxy), and some ambiguity was settled by its events.
      expect(report.metrics['SentByEvidence'] ?? 0).toBeGreaterThan(0);
      expect(wireVerdictHolds(report.verdict)).toBe(true);
    },
    240_000,
  );
});
