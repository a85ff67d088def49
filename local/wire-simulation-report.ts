import { wireVerdictHolds } from './aws/wire-verdict';
import { WIRE_FAULT_KINDS } from './aws/wire-fault-plan';
import { textTable } from './text-table';
import type { WireSimulationReport } from './wire-simulation';

/** The wire run for a person: the verdict first, then what was injected and what the sender counted. */
export function formatWireReport(report: WireSimulationReport): string {
  const v = report.verdict;
  const s = report.settings;
  const holds = wireVerdictHolds(v);
  const lines = [
    `wire simulation: ${s.events} queue messages (${Math.round(s.duplicateRate * 100)}% duplicates), seed ${s.seed}, ` +
      `${s.concurrency} concurrent invocations x batch ${s.batchSize}, ${s.sendsPerInvocation} sends in flight each, maxReceiveCount ${s.maxReceiveCount}`,
    `real SDK clients -> fault proxy -> dynalite / local SES v2 / local SNS; queue on fauxqs; ${Math.round(report.wallMs / 1000)} s, ${report.invocations} invocations`,
    '',
    textTable(
      ['verdict (from the providers\' own counts)', 'value'],
      [
        ['deliverable messages', v.messages],
        ['accepted sends at the providers', v.acceptedSends],
        ['unexplained duplicates', v.unexplainedDuplicates],
        ['explained duplicates (a request reached the provider, answer lost; counted)', v.explainedDuplicates],
        ['  of which only an invocation killed at its timeout explains (nobody left to record)', v.explainedByKills],
        ['  of which only the sender\'s own send timeout explains (answer came too late)', v.explainedBySenderTimeouts],
        ['lost (not terminal, or dead-lettered)', v.lost],
        ['UNKNOWN without a request that may have reached the provider', v.unknownWithoutAmbiguity],
        ['FAILED without a rejection', v.failedWithoutRejection],
        ['resends counted as possible duplicates without a request that may have reached the provider', v.possibleDuplicatesWithoutAmbiguity],
        ['final SENT / FAILED / UNKNOWN / PENDING / missing', `${v.states.SENT} / ${v.states.FAILED} / ${v.states.UNKNOWN} / ${v.states.PENDING} / ${v.states.missing}`],
        ['planned failures (unusable address): FAILED / accepted', `${report.plannedFailures.failed} of ${report.plannedFailures.messages} / ${report.plannedFailures.accepted}`],
        ['dead-lettered records', report.deadLettered],
        [`SMS through ${s.smsProvider}: possible duplicates (ResentAfterAmbiguity) / UNKNOWN rows`, `${report.sms.possibleDuplicates} / ${report.sms.unknown}`],
        ...(s.smsProvider === 'end-user-messaging' ? [['texts whose events came late / were lost', `${report.sms.eventsLate} / ${report.sms.eventsLost}`] as [string, string]] : []),
      ],
    ),
    '',
    textTable(
      ['fault injected on the wire', 'count'],
      WIRE_FAULT_KINDS.map((kind) => [kind, report.injected[kind]]),
    ),
    ...(s.ledgerOutage.seconds > 0
      ? [
          `ledger outages of ${s.ledgerOutage.seconds} s (about every ${s.ledgerOutage.everySeconds} s from the first ledger request): ${report.ledgerOutages.outages} started ` +
            `(${report.ledgerOutages.windows.map((w) => `${(w.fromMs / 1000).toFixed(1)}-${(w.toMs / 1000).toFixed(1)} s`).join(', ')}); ` +
            `DynamoDB requests refused ${report.ledgerOutages.refused}, executed with the answer lost ${report.ledgerOutages.executedAnswerLost}`,
        ]
      : []),
    `invocations killed at the function timeout: ${report.killedInvocations}; requests through the proxies: DynamoDB ${report.requests.dynamodb}, SES v2 ${report.requests.sesv2}, SNS ${report.requests.sns}; reclaimer runs ${report.reclaimerRuns}`,
    `sender metrics: ${Object.entries(report.metrics).map(([name, n]) => `${name} ${n}`).join(', ')}`,
    '',
    holds
      ? 'INVARIANTS HOLD: 0 unexplained duplicates, 0 lost, no UNKNOWN or FAILED without an ambiguous or rejected request.'
      : `INVARIANTS BROKEN: examples ${JSON.stringify(v.examples)}\n${Object.entries(report.traces)
          .map(([key, trace]) => `${key.slice(0, 16)}…\n  ${trace.join('\n  ')}`)
          .join('\n')}`,
  ];
  return lines.join('\n');
}
