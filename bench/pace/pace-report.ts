import { markdownTable, textTable } from '../../local/text-table';
import { machineLimits, paceGoals, type PaceRunResult } from './pace-result';

/** Median and range of one figure over rounds. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly rounds: readonly number[];
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length === 0 ? 0 : sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median: Math.round(median * 1000) / 1000, min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0, rounds: [...values] };
}

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

const yes = (ok: boolean) => (ok ? 'yes' : 'NO');

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

const header = (runs: readonly PaceRunResult[]) => ['', ...runs.map((r) => r.label)];
const GOAL_HEADER = ['goal (issues 9, 24)', 'required', 'measured', 'met'];

export function formatPaceText(off: readonly PaceRunResult[], on: readonly PaceRunResult[]): string {
  const runs = [...off, ...on];
  return [textTable(header(runs), rows(runs)), '', textTable(GOAL_HEADER, goalRows(off, on))].join('\n');
}

export function formatPaceMarkdown(off: readonly PaceRunResult[], on: readonly PaceRunResult[], notes: readonly string[]): string {
  const runs = [...off, ...on];
  const wall = spread(on.map((r) => r.wallSeconds));
  return [
    `# Provider pace: a ${runs[0]?.messages ?? 0}-message burst at the providers' quotas`,
    '',
    'Generated by `npm run bench:pace` (bench/provider-pace.ts).',
    '',
    markdownTable(header(runs), rows(runs)),
    '',
    markdownTable(GOAL_HEADER, goalRows(off, on)),
    '',
    `Limiting on, wall time to drain per round: ${on.map((r) => `${r.wallSeconds} s`).join(', ')} (median ${wall.median} s).`,
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}
