import { describe, expect, it } from 'vitest';
import { WIRE_FAULT_KINDS, wireFaults } from '../../local/aws/wire-fault-plan';
import { wireVerdictHolds } from '../../local/aws/wire-verdict';
import { ENV } from '../../functions/core/sender-config';
import { localLaneSenders, resolveLocalStack } from '../../local/local-stack';
import { paceAsConfigured, runWireSimulation, wireRunHolds } from '../../local/wire-simulation';
import { wireStack } from '../../local/wire-stack';
import { formatWireReport } from '../../local/wire-simulation-report';

describe('a wire run\'s pace, per lane, against what the lane\'s environment says', () => {
  const lane = (yields: boolean, throttlingAnswers: number, cuts: number) => ({
    environment: { [ENV.sendRateYieldsToThrottling]: String(yields) },
    pace: { throttlingAnswers, cuts },
  });
  it('a yielding lane must cut its pace once it hears a throttling answer; one that does not yield never cuts', () => {
    expect(paceAsConfigured(lane(true, 3, 1))).toBe(true);
    expect(paceAsConfigured(lane(true, 0, 0))).toBe(true);
    expect(paceAsConfigured(lane(true, 3, 0))).toBe(false);
    expect(paceAsConfigured(lane(false, 3, 0))).toBe(true);
    expect(paceAsConfigured(lane(false, 3, 1))).toBe(false);
  });
});

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
      // SNS's texts left their delivery logs, and the status function got them (local/wire-sms-delivery-logs.ts).
      expect(report.sms.deliveryLogs.handedOver).toBeGreaterThan(0);
      // Both lanes as the stack configures them: each sender with exactly the variables the one source gives it
      // (synth's, durations scaled: test/local/local-stack.test.ts), each lane judged on its own messages.
      const expected = localLaneSenders(resolveLocalStack(wireStack()), {
        tableName: report.lanes[0]?.environment[ENV.tableName] ?? '',
        queues: report.lanes.map((lane) => ({ queueUrl: lane.environment[ENV.sourceQueueUrl] ?? '', deadLetterQueueUrl: lane.environment[ENV.deadLetterQueueUrl] ?? '' })),
      });
      expect(report.lanes.map((lane) => [lane.name, lane.maxConcurrency, lane.environment])).toEqual(expected.map((lane) => [lane.name, lane.maxConcurrency, lane.environment]));
      for (const lane of report.lanes) {
        expect(lane.verdict.messages, lane.name).toBeGreaterThan(0);
        expect(wireVerdictHolds(lane.verdict), `${lane.name}: ${JSON.stringify(lane.verdict.examples)}`).toBe(true);
      }
      expect(report.lanes.reduce((sum, lane) => sum + lane.verdict.messages, 0)).toBe(report.verdict.messages);
      // The urgent lane's throttled sends were made again in place; the bulk lane has no pauses, and yields.
      const [urgent, bulk] = report.lanes;
      expect(urgent?.inPlaceRetries).toBeGreaterThan(0);
      expect(bulk?.inPlaceRetries).toBe(0);
      expect(bulk?.pace.throttlingAnswers).toBeGreaterThan(0);
      expect(bulk?.pace.cuts).toBeGreaterThan(0);
      expect(urgent?.pace.cuts).toBe(0);
      expect(wireRunHolds(report)).toBe(true);
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

  it(
    'carries SES\'s events through topic, queue and the status event source, loses them only where the plan says, and reports per lane how ambiguous e-mails were settled',
    async () => {
      const report = await runWireSimulation({ events: 150, seed: 5, faults: wireFaults(0.04), emailEventFaults: { late: 0.1, lost: 0.1 } });
      expect(report.verdict.unexplainedDuplicates, JSON.stringify(report.traces)).toBe(0);
      expect(report.verdict.lost).toBe(0);
      expect(wireVerdictHolds(report.verdict)).toBe(true);
      // Every published event reached the status function through the queue (a redelivered one more than once).
      expect(report.email.published).toBeGreaterThan(0);
      expect(report.email.received).toBeGreaterThanOrEqual(report.email.published);
      expect(report.email.deadLettered).toBe(0);
      expect(report.email.eventsLate + report.email.eventsLost).toBeGreaterThan(0);
      // Some lost SendEmail answers were settled by the events; the lanes' figures add up to the run's.
      expect(report.email.settledByEvidence).toBeGreaterThan(0);
      expect(report.lanes.reduce((sum, lane) => sum + lane.email.settledByEvidence, 0)).toBe(report.email.settledByEvidence);
      expect(report.lanes.reduce((sum, lane) => sum + lane.email.settledByWait, 0)).toBe(report.email.settledByWait);
      expect(formatWireReport(report)).toContain('ambiguous e-mails settled by evidence / by the wait');
    },
    240_000,
  );
});
