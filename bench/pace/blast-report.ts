import { blastGoals, type BlastRunResult } from './blast-result';
import { runTablesMarkdown, runTablesText, spread, yes, type RunTables } from './run-report';

/** One column per run, one row per figure. */
function rows(runs: readonly BlastRunResult[]): (string | number)[][] {
  const row = (name: string, cell: (r: BlastRunResult) => string | number) => [name, ...runs.map(cell)];
  return [
    row('lanes', (r) => (r.lanes ? 'on (urgent + bulk)' : 'off (one queue)')),
    row('marketing e-mails (blast) / login codes', (r) => `${r.blast} / ${r.codes}`),
    row('login code, enqueue -> accepted: p50 / p99 / max, s', (r) => `${r.codeLatency.p50} / ${r.codeLatency.p99} / ${r.codeLatency.max}`),
    row('codes accepted', (r) => `${r.codesAccepted} of ${r.codes}`),
    row("local SES's own latency, p99, s", (r) => r.providerLatencyP99),
    row('while codes trickle: window, s', (r) => r.window.seconds),
    row('  blast / codes accepted per s', (r) => `${r.window.blastPerSecond} / ${r.window.codesPerSecond}`),
    row('  blast ÷ (quota − codes)', (r) => `${(100 * r.window.blastShareOfRest).toFixed(1)}%`),
    row('blast drained after, s; ÷ (blast ÷ quota)', (r) => `${r.blastDrainSeconds}; ${r.blastDrainToIdeal}x`),
    row('provider requests', (r) => r.providerRequests),
    row('throttling answers (% of requests)', (r) => `${r.throttlingResponses} (${r.throttlingPercent}%)`),
    row('  by lane: requests / throttled', (r) => Object.entries(r.requestsByLane).map(([lane, c]) => `${lane} ${c.requests}/${c.throttled}`).join(', ')),
    row('SENT / FAILED / UNKNOWN / SUPPRESSED / PENDING', (r) => `${r.sent} / ${r.failed} / ${r.unknown} / ${r.suppressed} / ${r.pending}`),
    row('dead-lettered / lost / left on a queue', (r) => `${r.deadLettered} / ${r.lost} / ${r.stillQueued}`),
    row('duplicate sends', (r) => r.duplicateSends),
    row('records backed off / rate-limited deferrals', (r) => `${r.recordsBackedOff} / ${r.rateLimitedDeferrals}`),
    row('wall time, s', (r) => r.wallSeconds),
    row('CPU: sender process, cores; machine busy', (r) => `${r.cpu.benchProcessCores}; ${r.cpu.machineBusyPercent}%`),
    row('sender event-loop delay p99, ms', (r) => r.eventLoopDelayP99Ms),
    row('machine the limit?', (r) => (r.machineLimits.length === 0 ? 'no' : `YES: ${r.machineLimits.join('; ')} (does not count)`)),
  ];
}

function goalRows(off: readonly BlastRunResult[], on: readonly BlastRunResult[]): (string | number)[][] {
  const counted = on.filter((r) => blastGoals(r).machineNotTheLimit);
  const p99 = spread(counted.map((r) => r.codeLatency.p99));
  const share = spread(counted.map((r) => 100 * r.window.blastShareOfRest));
  const budget = spread(counted.map((r) => 2 + r.providerLatencyP99));
  const offP99 = spread(off.map((r) => r.codeLatency.p99));
  const all = [...off, ...on];
  return [
    ['rounds that count (machine not the limit), lanes on', `${on.length}`, `${counted.length}`, yes(on.length > 0 && counted.length === on.length)],
    ['login-code p99, lanes on', `<= 2 s + provider p99 (${budget.max} s)`, `median ${p99.median} s (${p99.min}..${p99.max})`, yes(counted.length > 0 && counted.every((r) => blastGoals(r).codeP99WithinBudget))],
    ['blast ÷ (account rate − codes), lanes on', '>= 85%', `median ${share.median.toFixed(1)}% (${share.min.toFixed(1)}..${share.max.toFixed(1)})`, yes(counted.length > 0 && counted.every((r) => blastGoals(r).blastAtLeast85Percent))],
    ['0 FAILED / lost / dead-lettered (every run)', '0/0/0', all.map((r) => `${r.failed}/${r.lost}/${r.deadLettered}`).join(', '), yes(all.every((r) => blastGoals(r).noneFailedLostOrDeadLettered))],
    ["login-code p99, lanes off (today's delay)", 'shown', off.length ? `median ${offP99.median} s (${offP99.min}..${offP99.max})` : 'not run', off.length ? 'shown' : 'NO'],
  ];
}

function tables(off: readonly BlastRunResult[], on: readonly BlastRunResult[]): RunTables {
  const runs = [...off, ...on];
  return { labels: runs.map((r) => r.label), rows: rows(runs), goalTitle: 'goal (issue 24)', goalRows: goalRows(off, on) };
}

export function formatBlastText(off: readonly BlastRunResult[], on: readonly BlastRunResult[]): string {
  return runTablesText(tables(off, on));
}

export function formatBlastMarkdown(off: readonly BlastRunResult[], on: readonly BlastRunResult[], notes: readonly string[]): string {
  return runTablesMarkdown(tables(off, on), {
    title: 'Blast: login codes during a marketing backlog, lanes off and on',
    generatedBy: '`npm run bench:blast` (bench/blast.ts)',
    notes,
  });
}
