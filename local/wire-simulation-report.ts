import { wireVerdictHolds } from './aws/wire-verdict';
import { WIRE_FAULT_KINDS } from './aws/wire-fault-plan';
import { ENV } from '../functions/core/sender-config';
import { throttleRetryPausesMs } from '../functions/core/policy/send-lanes';
import { METRIC } from '../functions/core/observability/metric-names';
import { textTable } from './text-table';
import { formatWireOutcomeFeed } from './wire-outcome-feed-report';
import { formatWireFallbacks } from './wire-fallback-format';
import { paceAsConfigured, type WireSimulationReport } from './wire-simulation';

/** The wire run for a person: the verdict first, then what was injected and what the sender counted. */
export function formatWireReport(report: WireSimulationReport): string {
  const v = report.verdict;
  const s = report.settings;
  const holds = wireVerdictHolds(v);
  const lines = [
    `wire simulation: ${s.events} queue messages (${Math.round(s.duplicateRate * 100)}% duplicates), seed ${s.seed}, ` +
      `${report.lanes.map((lane) => `${lane.name} lane ${lane.maxConcurrency}`).join(' + ')} concurrent invocations x batch ${s.batchSize}, ` +
      `${s.sendsPerInvocation} sends in flight each, maxReceiveCount ${s.maxReceiveCount}`,
    `real SDK clients -> fault proxy -> dynalite / local SES v2 / local SNS; queues on fauxqs; SES events -> SNS topic -> SQS -> status event source; ${Math.round(report.wallMs / 1000)} s, ${report.invocations} invocations`,
    '',
    textTable(
      ['verdict (from the providers\' own counts)', 'value'],
      [
        ['deliverable messages', v.messages],
        ['accepted sends at the providers', v.acceptedSends],
        ['unexplained duplicates', v.unexplainedDuplicates],
        ['  of which an ambiguous request would explain, but the sender never counted (a resend without the ambiguity recorded)', v.uncountedDuplicates],
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
        [
          'push duplicates: accepted by SNS (billed, woke the device) / shown on the device',
          `${report.pushDuplicates.providerSide} / ${report.pushDuplicates.deviceVisible}` +
            (report.pushDuplicates.hiddenByOtherMessages > 0 ? ` (${report.pushDuplicates.hiddenByOtherMessages} messages hidden by another's collapse id)` : ''),
        ],
        [`SMS through ${s.smsProvider}: possible duplicates (ResentAfterAmbiguity) / UNKNOWN rows`, `${report.sms.possibleDuplicates} / ${report.sms.unknown}`],
        ...(s.smsProvider === 'end-user-messaging'
          ? [['texts whose events came late / were lost', `${report.sms.eventsLate} / ${report.sms.eventsLost}`] as [string, string]]
          : [
              ['texts whose SNS delivery logs came late / were lost (the fault plan\'s draw)', `${report.sms.eventsLate} / ${report.sms.eventsLost}`] as [string, string],
              [
                'SNS delivery log lines: logged / handed to the status function / batches to the failure destination',
                `${report.sms.deliveryLogs.logged} / ${report.sms.deliveryLogs.handedOver} / ${report.sms.deliveryLogs.failedBatches}`,
              ] as [string, string],
            ]),
        ['e-mails whose SES events came late / were lost (the fault plan\'s draw)', `${report.email.eventsLate} / ${report.email.eventsLost}`],
        [
          'SES events: published to the topic / received by the status event source (redeliveries) / dead-lettered',
          `${report.email.published} / ${report.email.received} (${report.email.redeliveries}) / ${report.email.deadLettered}`,
        ],
        ['ambiguous e-mails settled by evidence / by the wait (SentByEvidence / SettledByWait)', `${report.email.settledByEvidence} / ${report.email.settledByWait}`],
      ],
    ),
    '',
    formatLanes(report),
    '',
    formatWireOutcomeFeed(report.outcomeFeed),
    '',
    formatWireFallbacks(report.fallback),
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
    ...report.lanes
      .filter((lane) => !paceAsConfigured(lane))
      .map(
        (lane) =>
          `PACE NOT AS CONFIGURED: the ${lane.name} lane's environment says it ${lane.environment[ENV.sendRateYieldsToThrottling] === 'true' ? 'yields' : 'does not yield'} to throttling; ` +
          `its governors heard ${lane.pace.throttlingAnswers} throttling answers and cut their pace ${lane.pace.cuts} times.`,
      ),
  ];
  return lines.join('\n');
}

/** The in-place pauses of the lane a sender's `SEND_LANE` names. */
function pausesOf(env: Readonly<Record<string, string>>): string {
  const lane = env[ENV.sendLane];
  const pauses = throttleRetryPausesMs(lane === 'urgent' || lane === 'bulk' ? lane : undefined);
  return pauses.length > 0 ? `${pauses.join(', ')} ms` : 'none';
}

/** Each lane as the stack configured it, judged on its own messages. */
function formatLanes(report: WireSimulationReport): string {
  const pace = (env: Readonly<Record<string, string>>) =>
    `shares ${env[ENV.sendRateShares] ?? '-'}, account ${env[ENV.sendRateAccountShare] ?? '1'}, ${env[ENV.sendRateYieldsToThrottling] === 'true' ? 'yields' : 'no yield'}`;
  const rows: [string, ...(string | number)[]][] = [
    ['sender (synth\'s environment, durations scaled)', ...report.lanes.map((lane) => `${lane.maxConcurrency} invocations; ${pace(lane.environment)}`)],
    ['throttled sends made again in place (pauses)', ...report.lanes.map((lane) => `${lane.inPlaceRetries} (${pausesOf(lane.environment)})`)],
    ['deliverable messages', ...report.lanes.map((lane) => lane.verdict.messages)],
    ['accepted sends at the providers', ...report.lanes.map((lane) => lane.verdict.acceptedSends)],
    ['unexplained duplicates', ...report.lanes.map((lane) => lane.verdict.unexplainedDuplicates)],
    ['explained duplicates (counted)', ...report.lanes.map((lane) => lane.verdict.explainedDuplicates)],
    ['lost', ...report.lanes.map((lane) => lane.verdict.lost)],
    ['final SENT / FAILED / UNKNOWN', ...report.lanes.map(({ verdict: { states } }) => `${states.SENT} / ${states.FAILED} / ${states.UNKNOWN}`)],
    ['throttling answers its governors heard / pace cuts (yields)', ...report.lanes.map(({ pace }) => `${pace.throttlingAnswers} / ${pace.cuts}`)],
    ['throttled / rate-limited deferrals / records backed off', ...report.lanes.map(({ metrics: m }) => `${m[METRIC.ProviderThrottled] ?? 0} / ${m[METRIC.RateLimitedDeferral] ?? 0} / ${m[METRIC.RecordBackedOff] ?? 0}`)],
    ['invocations (killed at the timeout) / dead-lettered', ...report.lanes.map((lane) => `${lane.invocations} (${lane.killedInvocations}) / ${lane.deadLettered}`)],
    ['ambiguous e-mails settled by evidence / by the wait', ...report.lanes.map(({ email }) => `${email.settledByEvidence} / ${email.settledByWait}`)],
  ];
  return textTable(['per lane', ...report.lanes.map((lane) => lane.name)], rows);
}
