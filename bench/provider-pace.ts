/**
 * `npm run bench:pace`: a burst of queue messages (half e-mail, half SMS) against local SES v2 and
 * SNS that enforce 40 e-mails/s and 20 SMS/s (by default) with the providers' throttling errors, drained by
 * the real sender wired as Lambda wires it, side by side with the send-rate governor off and on.
 * Writes bench/results/provider-pace.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { BackoffSettings } from '../functions/core/queue/visibility-backoff';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';
import { ProgressLine } from '../local/progress-line';
import { formatPaceMarkdown, formatPaceText } from './pace/pace-report';
import { spread } from './pace/run-report';
import { EVENT_LOOP_DELAY_LIMIT_MS, MACHINE_BUSY_LIMIT_PERCENT, paceGoals, type PaceRunResult } from './pace/pace-result';
import { runPaceScenario, type PaceScenarioOptions } from './pace/pace-scenario';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const USAGE =
  'usage: npm run bench:pace -- [--messages N] [--email-quota N] [--sms-quota N] [--max-concurrency N] [--rounds N] [--off-rounds N] [--off-backoff-base S] [--off-backoff-cap S] [--max-drain-minutes N] [--out DIR]\n';
const { values } = commandLineOrExit(USAGE, () => parseCommandLine({
  options: {
    messages: { type: 'string', default: '3000' },
    'email-quota': { type: 'string', default: '40' },
    'sms-quota': { type: 'string', default: '20' },
    'max-concurrency': { type: 'string', default: '9' },
    rounds: { type: 'string', default: '3' },
    'off-rounds': { type: 'string', default: '1' },
    'off-backoff-base': { type: 'string' },
    'off-backoff-cap': { type: 'string' },
    'max-drain-minutes': { type: 'string', default: '60' },
    out: { type: 'string' },
  },
}));
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));
const progress = new ProgressLine();
const log = (line: string) => progress.log(line);
const whole = (name: string, text: string | undefined, min: number): number =>
  commandLineOrExit(USAGE, () => integerOption(name, text ?? '', { min }));

// Low enough that this 2-core machine is not the limit (a run where it is says so and does not count).
const QUOTAS = { email: whole('email-quota', values['email-quota'], 1), sms: whole('sms-quota', values['sms-quota'], 1) } as const;
// Sized to the quotas: 9 processes + the reclaimer pace at 2 SMS/s each. With 16 on 20 SMS/s each paces at 1.18/s,
// and 16 processes of which any may send twice in one second overrun a strict per-second limit (docs/benchmark.md).
const MAXIMUM_CONCURRENCY = whole('max-concurrency', values['max-concurrency'], 1);
const base: Omit<PaceScenarioOptions, 'label' | 'rateLimiting'> = {
  messages: whole('messages', values.messages, 2),
  quotas: QUOTAS,
  // The event source's maximum concurrency plus one for the reclaimer.
  maximumConcurrency: MAXIMUM_CONCURRENCY,
  batchSize: 10,
  maxReceiveCount: 100,
  maxDrainMs: whole('max-drain-minutes', values['max-drain-minutes'], 1) * 60_000,
  log,
};
const offBackoff: BackoffSettings | undefined =
  values['off-backoff-base'] || values['off-backoff-cap']
    ? { baseSeconds: whole('off-backoff-base', values['off-backoff-base'] ?? '10', 1), capSeconds: whole('off-backoff-cap', values['off-backoff-cap'] ?? '2400', 1) }
    : undefined;
const rounds = whole('rounds', values.rounds, 0);
const offRounds = whole('off-rounds', values['off-rounds'], 0);

const off: PaceRunResult[] = [];
const on: PaceRunResult[] = [];
const started = Date.now();
const secs = () => `${Math.round((Date.now() - started) / 1000)} s`;
log(`provider pace: ${base.messages} messages, quotas ${QUOTAS.email} e-mails/s and ${QUOTAS.sms} SMS/s, ${MAXIMUM_CONCURRENCY} concurrent invocations, batch ${base.batchSize}, maxReceiveCount ${base.maxReceiveCount}`);
for (let i = 0; i < offRounds; i += 1) {
  log(`[${secs()}] rate limiting OFF, round ${i + 1}/${offRounds}${offBackoff ? ` (backoff scaled down: ${offBackoff.baseSeconds} s .. ${offBackoff.capSeconds} s)` : ''}`);
  off.push(await runPaceScenario({ ...base, label: `OFF${offRounds > 1 ? ` ${i + 1}` : ''}`, rateLimiting: false, backoff: offBackoff, progress }));
  log(`[${secs()}]   ${describe(off.at(-1))}`);
}
for (let i = 0; i < rounds; i += 1) {
  log(`[${secs()}] rate limiting ON, round ${i + 1}/${rounds}`);
  on.push(await runPaceScenario({ ...base, label: `ON ${i + 1}`, rateLimiting: true, progress }));
  log(`[${secs()}]   ${describe(on.at(-1))}`);
}

const notes = [
  `The stack without lanes (lanes: false): one queue, one sender; a lane drained alone paces the same way at its own shares (with lanes a marketing burst drains at the bulk lane's 80% of the rate by design: npm run bench:blast). Quotas ${QUOTAS.email} e-mails/s and ${QUOTAS.sms} SMS/s, low enough that a round where the machine is busy at ${MACHINE_BUSY_LIMIT_PERCENT}% or more, or the sender's event loop lags ${EVENT_LOOP_DELAY_LIMIT_MS} ms at p99, is the exception: such a round says so and does not count.`,
  `Machine: ${cpus().length} cores (shared with other work; see "machine CPU busy"), Node ${process.version}. Every service on 127.0.0.1, in two child processes: dynalite; fauxqs SQS with aws-ses-v2-local behind the counting front and the local SNS server. The sender runs alone in the bench process.`,
  `Sender as Lambda wires it (local/lambda-wiring.ts over loadSenderConfig) with the stack's defaults: function timeout 30 s, claim timeout 120 s, send timeout 10 s, 16 sends in flight per invocation; queue visibility 180 s, maxReceiveCount ${base.maxReceiveCount}; event source maximum concurrency ${MAXIMUM_CONCURRENCY}, batch ${base.batchSize}; the reclaimer on its timer.`,
  `OFF: no SEND_RATE_* set. ON: SEND_RATE_EMAIL_PER_SECOND=${QUOTAS.email}, SEND_RATE_SMS_PER_SECOND=${QUOTAS.sms}, SEND_RATE_SHARES=${MAXIMUM_CONCURRENCY + 1} (maximum concurrency + 1, as synth writes it): each invocation's environment paces at 1/${MAXIMUM_CONCURRENCY + 1} of the quota, so ${MAXIMUM_CONCURRENCY} environments use ${MAXIMUM_CONCURRENCY}/${MAXIMUM_CONCURRENCY + 1} of it (the reclaimer's share is idle here).`,
  offBackoff
    ? `The OFF run's visibility backoff was SCALED DOWN to ${offBackoff.baseSeconds} s .. ${offBackoff.capSeconds} s (THROTTLE_BACKOFF_BASE/CAP_SECONDS) so that it ends in a reasonable time; the ON runs use the built-in 10 s .. 2400 s.`
    : 'Both use the built-in visibility backoff (10 s doubling to 2400 s, equal jitter).',
  'The burst is on the queue before the first poll; wall time runs from the first poll to the last acknowledgement. Provider requests and throttling responses are counted at the sender\'s provider port (every call that went out, by the classified answer); accepted sends and duplicates are counted by the local SES and SNS servers per idempotency key.',
];
process.stdout.write(`${formatPaceText(off, on)}\n`);
const onSpread = {
  throttlingPercent: spread(on.map((r) => r.throttlingPercent)),
  wallSeconds: spread(on.map((r) => r.wallSeconds)),
  wallToIdeal: spread(on.map((r) => r.wallToIdeal)),
};
process.stdout.write(
  `\nlimiting ON over ${on.length} rounds: throttling ${onSpread.throttlingPercent.rounds.join('%, ')}% (median ${onSpread.throttlingPercent.median}%); ` +
    `wall ${onSpread.wallSeconds.rounds.join(' s, ')} s (median ${onSpread.wallSeconds.median} s); wall ÷ ideal median ${onSpread.wallToIdeal.median}x\n`,
);
for (const note of notes) process.stdout.write(`- ${note}\n`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, 'provider-pace.json'),
  `${JSON.stringify({ generatedAt: new Date().toISOString(), settings: { ...base, log: undefined, offBackoff: offBackoff ?? null }, off, on, onSpread, goals: [...off, ...on].map((r) => ({ label: r.label, ...paceGoals(r) })), notes }, null, 2)}\n`,
);
writeFileSync(join(RESULTS, 'provider-pace.md'), formatPaceMarkdown(off, on, notes));
log(`[${secs()}] wrote ${join(RESULTS, 'provider-pace.json')} and provider-pace.md`);

function describe(r: PaceRunResult | undefined): string {
  if (!r) return '';
  return (
    `${r.drained ? 'drained' : 'NOT drained'} in ${r.wallSeconds} s (ideal ${r.idealSeconds} s, ${r.wallToIdeal}x); ` +
    `requests ${r.providerRequests}, throttled ${r.throttlingResponses} (${r.throttlingPercent}%); SENT ${r.sent}, FAILED ${r.failed}, ` +
    `UNKNOWN ${r.unknown}, PENDING ${r.pending}, DLQ ${r.deadLettered}, lost ${r.lost}, duplicate sends ${r.duplicateSends}; ` +
    `99% accepted by ${r.acceptedBy.p99} s; CPU to then: sender ${r.cpu.benchProcessCores} cores, machine ${r.cpu.machineBusyPercent}% busy`
  );
}
