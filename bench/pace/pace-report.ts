import { machineLimits, paceGoals, type PaceRunResult } from './pace-result';
import { runTablesMarkdown, runTablesText, spread, yes, type RunTables } from './run-report';

const backoffText = (r: PaceRunResult) => `${r.backoff.baseSeconds} s .. ${r.backoff.capSeconds} s`;

/** One column per run, one row per figure. */
function rows(runs: readonly PaceRunResult[]): (string | number)[][] {
  const row = (name: string, cell: (r: PaceRunResult) => string | number) => [name, ...runs.map(cell)];
  return [
    row('messages (e-mail / SMS)', (r) => `${r.messages} (${r.perChannel.email} / ${r.perChannel.sms})`),
    row('visibility backoff base .. cap', backoffText),
    row('provider requests', (r) => r.providerRequests),
    row('  e-mail / SMS', (r) => `${r.requestsByChannel.email.requests} / ${r.requestsByChannel.sms.requests}`),
    row('throttling responses', (r) => r.throttlingResponses),
    row('throttling, % of provider requests', (r) => `${r.throttlingPercent}%`),
    row('  e-mail / SMS', (r) => `${r.requestsByChannel.email.throttled + r.requestsByChannel.email.quotaExhausted} / ${r.requestsByChannel.sms.throttled + r.requestsByChannel.sms.quotaExhausted}`),
    row('SENT', (r) => r.sent),
    row('FAILED', (r) => r.failed),
    row('UNKNOWN', (r) => r.unknown),
    row('still PENDING', (r) => r.pending),
    row('dead-lettered', (r) => r.deadLettered),
    row('lost', (r) => r.lost),
    row('left on the queue', (r) => r.stillQueued),
    row('accepted sends at the providers', (r) => r.acceptedSends),
    row('  distinct keys / duplicate sends', (r) => `${r.distinctKeysAccepted} / ${r.duplicateSends}`),
    row('records backed off (ChangeMessageVisibility)', (r) => r.recordsBackedOff),
    row('rate-limited deferrals (no slot in time)', (r) => r.rateLimitedDeferrals),
    row('receives / redeliveries', (r) => `${r.receives} / ${r.redeliveries}`),
    row('invocations by ending', (r) => Object.entries(r.invocationEndings).map(([k, n]) => `${k} ${n}`).join(', ')),
    row('invocation p50 / p90, ms; pause between p50, ms', (r) => `${r.invocationTimes.p50Ms} / ${r.invocationTimes.p90Ms}; ${r.invocationTimes.gapP50Ms}`),
    row('wall time to drain, s', (r) => (r.drained ? r.wallSeconds : `${r.wallSeconds} (NOT drained)`)),
    row('ideal: messages ÷ quota, s', (r) => `${r.idealSeconds} (${r.idealChannel})`),
    row('wall ÷ ideal', (r) => `${r.wallToIdeal}x`),
    row('enqueue the burst, s (before the drain)', (r) => r.enqueueSeconds),
    row('sends accepted by: 50% / 99% / all, s', (r) => `${r.acceptedBy.p50} / ${r.acceptedBy.p99} / ${r.acceptedBy.all}`),
    row('steady accepted rate e-mail / SMS, per s', (r) => `${r.steadyRate.email} / ${r.steadyRate.sms}`),
    row('CPU to 99%: sender process, cores', (r) => r.cpu.benchProcessCores),
    row('CPU to 99%: SQS+SES+SNS / dynalite, cores', (r) => `${childCores(r, 'provider-services')} / ${childCores(r, 'dynalite')}`),
    row('CPU to 99%: whole machine busy (all work), %', (r) => r.cpu.machineBusyPercent),
    row('ledger request timeouts (records redelivered)', (r) => r.senderWarnings[LEDGER_TIMEOUT] ?? 0),
    row('event loop delay p99, ms', (r) => r.eventLoopDelayP99Ms),
    row('machine the limit?', (r) => (machineLimits(r).length === 0 ? 'no' : `YES: ${machineLimits(r).join('; ')} (does not count)`)),
  ];
}

const LEDGER_TIMEOUT = 'error Ledger request failed; the record will be redelivered: TimeoutError';
const childCores = (r: PaceRunResult, prefix: string) =>
  Object.entries(r.cpu.childCores)
    .filter(([name]) => name.startsWith(prefix))
    .reduce((n, [, cores]) => n + cores, 0)
    .toFixed(2);

function goalRows(off: readonly PaceRunResult[], allOn: readonly PaceRunResult[]): (string | number)[][] {
  // A round where the machine was the limit does not count.
  const on = allOn.filter((r) => machineLimits(r).length === 0);
  const pct = spread(on.map((r) => r.throttlingPercent));
  const ratio = spread(on.map((r) => r.wallToIdeal));
  const all = [...off, ...on];
  const lossFree = all.every((r) => paceGoals(r).noneFailedLostOrDeadLettered);
  const lossFigures = all.map((r) => `${r.failed}/${r.lost}/${r.deadLettered}`).join(', ');
  return [
    ['rounds that count (machine not the limit), limiting on', `${allOn.length}`, `${on.length}`, yes(allOn.length > 0 && on.length === allOn.length)],
    ['0 FAILED / lost / dead-lettered (every run)', '0/0/0', lossFigures, yes(lossFree)],
    ['throttling responses, % of requests (limiting on)', '<= 1%', `median ${pct.median}% (${pct.min}%..${pct.max}%)`, yes(on.length > 0 && on.every((r) => paceGoals(r).throttlingAtMostOnePercent))],
    ['wall time ÷ (messages ÷ quota) (limiting on)', '<= 1.15x', `median ${ratio.median}x (${ratio.min}x..${ratio.max}x)`, yes(on.length > 0 && on.every((r) => paceGoals(r).wallWithin15PercentOfIdeal))],
  ];
}

function tables(off: readonly PaceRunResult[], on: readonly PaceRunResult[]): RunTables {
  const runs = [...off, ...on];
  return { labels: runs.map((r) => r.label), rows: rows(runs), goalTitle: 'goal (issues 9, 24)', goalRows: goalRows(off, on) };
}

export function formatPaceText(off: readonly PaceRunResult[], on: readonly PaceRunResult[]): string {
  return runTablesText(tables(off, on));
}

export function formatPaceMarkdown(off: readonly PaceRunResult[], on: readonly PaceRunResult[], notes: readonly string[]): string {
  const wall = spread(on.map((r) => r.wallSeconds));
  return runTablesMarkdown(tables(off, on), {
    title: `Provider pace: a ${[...off, ...on][0]?.messages ?? 0}-message burst at the providers' quotas`,
    generatedBy: '`npm run bench:pace` (bench/provider-pace.ts)',
    after: [`Limiting on, wall time to drain per round: ${on.map((r) => `${r.wallSeconds} s`).join(', ')} (median ${wall.median} s).`],
    notes,
  });
}
