/**
 * `npm run bench:blast`: a marketing backlog of several minutes of the local SES quota on the queue,
 * login codes trickling in while it drains, drained by the real senders wired as Lambda wires them,
 * with lanes off (one queue, as before lanes) and on (urgent and bulk lanes, as the stack builds them).
 * Writes bench/results/blast.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_BULK_RATE_SHARE } from '../functions/core/policy/send-lanes';
import { commandLineOrExit, integerOption, numberOption, parseCommandLine } from '../local/command-line';
import { ProgressLine } from '../local/progress-line';
import { formatBlastMarkdown, formatBlastText } from './pace/blast-report';
import { blastGoals, type BlastRunResult } from './pace/blast-result';
import { EVENT_LOOP_DELAY_LIMIT_MS, MACHINE_BUSY_LIMIT_PERCENT } from './pace/pace-result';
import type { BlastScenarioOptions } from './pace/blast-options';
import { runBlastScenario } from './pace/blast-scenario';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const USAGE =
  'usage: npm run bench:blast -- [--quota N] [--minutes-of-quota N] [--codes-per-second N] [--rounds N] [--off-rounds N] [--out DIR]\n';
const { values } = commandLineOrExit(USAGE, () =>
  parseCommandLine({
    options: {
      quota: { type: 'string', default: '20' },
      'minutes-of-quota': { type: 'string', default: '3' },
      'codes-per-second': { type: 'string', default: '2' },
      rounds: { type: 'string', default: '3' },
      'off-rounds': { type: 'string', default: '1' },
      out: { type: 'string' },
    },
  }),
);
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));
const progress = new ProgressLine();
const log = (line: string) => progress.log(line);
const whole = (name: string, text: string | undefined, min: number) => commandLineOrExit(USAGE, () => integerOption(name, text ?? '', { min }));
const decimal = (name: string, text: string | undefined) => commandLineOrExit(USAGE, () => numberOption(name, text ?? '', { above: 0, max: 1000 }));

const quota = whole('quota', values.quota, 1);
const minutes = decimal('minutes-of-quota', values['minutes-of-quota']);
const codesPerSecond = decimal('codes-per-second', values['codes-per-second']);
const blast = Math.round(minutes * 60 * quota);
// Codes trickle while the blast drains with lanes on (at the bulk lane's share), and stop before it ends.
const codesForMs = Math.round(((0.8 * blast) / (quota * DEFAULT_BULK_RATE_SHARE)) * 1000);
const base: Omit<BlastScenarioOptions, 'label' | 'lanes'> = {
  blast,
  codesPerSecond,
  codesForMs,
  emailQuota: quota,
  maxConcurrency: 10,
  urgentMaxConcurrency: 5,
  bulkRateShare: DEFAULT_BULK_RATE_SHARE,
  batchSize: 10,
  maxReceiveCount: 100,
  maxDrainMs: Math.max(10 * 60_000, 4 * (blast / quota) * 1000),
  log,
};
const rounds = whole('rounds', values.rounds, 0);
const offRounds = whole('off-rounds', values['off-rounds'], 0);

const off: BlastRunResult[] = [];
const on: BlastRunResult[] = [];
const started = Date.now();
const secs = () => `${Math.round((Date.now() - started) / 1000)} s`;
log(`blast: ${blast} marketing e-mails (${minutes} min of a ${quota}/s quota), login codes at ${codesPerSecond}/s for ${Math.round(codesForMs / 1000)} s`);
for (let i = 0; i < offRounds; i += 1) {
  log(`[${secs()}] lanes OFF, round ${i + 1}/${offRounds}`);
  off.push(await runBlastScenario({ ...base, label: `OFF ${i + 1}`, lanes: false, progress }));
  log(`[${secs()}]   ${describe(off.at(-1))}`);
}
for (let i = 0; i < rounds; i += 1) {
  log(`[${secs()}] lanes ON, round ${i + 1}/${rounds}`);
  on.push(await runBlastScenario({ ...base, label: `ON ${i + 1}`, lanes: true, progress }));
  log(`[${secs()}]   ${describe(on.at(-1))}`);
}

const notes = [
  `Machine: ${cpus().length} cores, Node ${process.version}. Every service on 127.0.0.1, in two child processes: dynalite; fauxqs SQS with aws-ses-v2-local (throttling above ${quota} e-mails/s with SES's own error) and the local SNS server. The senders run in the bench process.`,
  `The blast: ${blast} marketing e-mails (weekly-offers), ${minutes} minutes of the quota, on the queue before the first poll. The codes: otp login-code e-mails, one per new user, ${codesPerSecond}/s on a fixed schedule from the first poll for ${Math.round(codesForMs / 1000)} s. A code's latency runs from its SendMessage to the local SES's acceptance.`,
  `Lanes OFF: one queue, one sender at SEND_RATE_EMAIL_PER_SECOND=${quota} and SEND_RATE_SHARES=${base.maxConcurrency + 1} (maximum concurrency ${base.maxConcurrency} + the reclaimer), backoff 10 s .. 2400 s: the stack before lanes.`,
  `Lanes ON, each sender with the environment synth writes for its lane (laneSenders, through local/local-stack.ts): urgent (otp, transactional) at maximum concurrency ${base.urgentMaxConcurrency}, SEND_RATE_SHARES=${base.urgentMaxConcurrency + 1}, the whole account rate, a throttled send made again in place after 250 ms and 500 ms (claim held), then backoff from 1 s; bulk (marketing) at maximum concurrency ${base.maxConcurrency}, SEND_RATE_SHARES=${base.maxConcurrency}, SEND_RATE_ACCOUNT_SHARE=${DEFAULT_BULK_RATE_SHARE}, yielding to throttling (halve, back to full over 5 s), backoff from 10 s.`,
  `Both: the sender wired as Lambda wires it (local/lambda-wiring.ts over loadSenderConfig), function timeout 30 s, 16 sends in flight, batch 10, visibility 180 s, maxReceiveCount 100, the reclaimer on its timer.`,
  `"Blast ÷ (quota − codes)" is measured while codes trickle (from 5 s after the first poll to the last code's acceptance): the blast's accepted e-mails per second over what the quota leaves after the codes' accepted rate.`,
  `A round where the machine was busy at ${MACHINE_BUSY_LIMIT_PERCENT}% or more, or the senders' event loop lagged ${EVENT_LOOP_DELAY_LIMIT_MS} ms or more at p99, measured the machine and does not count.`,
];
process.stdout.write(`${formatBlastText(off, on)}\n`);
for (const note of notes) process.stdout.write(`- ${note}\n`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, 'blast.json'),
  `${JSON.stringify({ generatedAt: new Date().toISOString(), settings: { ...base, log: undefined }, off, on, goals: on.map((r) => ({ label: r.label, ...blastGoals(r) })), notes }, null, 2)}\n`,
);
writeFileSync(join(RESULTS, 'blast.md'), formatBlastMarkdown(off, on, notes));
log(`[${secs()}] wrote ${join(RESULTS, 'blast.json')} and blast.md`);

function describe(r: BlastRunResult | undefined): string {
  if (!r) return '';
  return (
    `${r.drained ? 'drained' : 'NOT drained'} in ${r.wallSeconds} s; codes p50/p99/max ${r.codeLatency.p50}/${r.codeLatency.p99}/${r.codeLatency.max} s; ` +
    `blast ${(100 * r.window.blastShareOfRest).toFixed(1)}% of quota − codes; throttled ${r.throttlingResponses} (${r.throttlingPercent}%); ` +
    `FAILED ${r.failed}, DLQ ${r.deadLettered}, lost ${r.lost}, duplicates ${r.duplicateSends}; machine ${r.cpu.machineBusyPercent}% busy` +
    (r.machineLimits.length ? ` — MACHINE THE LIMIT: ${r.machineLimits.join('; ')}` : '')
  );
}
