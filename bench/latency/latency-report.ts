import { round } from '../../local/stats';
import { markdownTable, textTable } from '../../local/text-table';
import { PRICES } from '../cost-model';
import { ONE_VCPU_MB, SQS_PRICES, type RunFigures } from './lambda-bill';
import { describeLatency } from './latency-model';
import { LATENCY_SENDERS, type LatencyScenarioResult, type LatencySenderId } from './latency-scenario';
import { ratioText } from './round-ratios';

/** Issue 11's goal for messages per second per instance against Powertools. */
export const THROUGHPUT_GOAL = 1.5;

type Table = { readonly header: string[]; readonly rows: (string | number)[][] };

function pooledTable(result: LatencyScenarioResult): Table {
  const cols = LATENCY_SENDERS.map((s) => s.id);
  const row = (label: string, f: (fig: RunFigures, id: LatencySenderId) => string | number) => [label, ...cols.map((id) => f(result.pooled[id], id))];
  const checks = (id: LatencySenderId, f: (c: LatencyScenarioResult['runs'][number]['checks']) => number) =>
    result.runs.filter((r) => r.sender === id).reduce((n, r) => n + f(r.checks), 0);
  return {
    header: ['all rounds', ...LATENCY_SENDERS.map((s) => s.label)],
    rows: [
      row('messages/s per instance', (f) => f.messagesPerSecondPerInstance),
      row('queue messages/s per instance', (f) => f.queueMessagesPerSecondPerInstance),
      row('invocation p50 / p99 ms', (f) => `${f.invocationMs.p50} / ${f.invocationMs.p99}`),
      row('records per invocation', (f) => f.recordsPerInvocation),
      row('CPU ms per invocation (this machine)', (f) => f.cpuMsPerInvocation),
      row(`Lambda GB-s per million messages (${result.settings.memoryMb} MB)`, (f) => f.gbSecondsPerMillion),
      row(`  if CPU ran at ${result.settings.memoryMb} MB's vCPU share: messages/s, GB-s per M`, (f) => `${f.atMemoryCpuShare.messagesPerSecondPerInstance}, ${f.atMemoryCpuShare.gbSecondsPerMillion}`),
      row('DynamoDB write / read units per message', (f) => `${f.dynamo.writeUnits} / ${f.dynamo.readUnits}`),
      row('SQS requests per message (receive + delete + visibility)', (f) => `${f.sqs.total} (${f.sqs.receive} + ${f.sqs.delete} + ${f.sqs.changeVisibility})`),
      row('USD per million messages: DynamoDB + Lambda + SQS', (f) => `${f.usdPerMillion.total} (${f.usdPerMillion.dynamo} + ${f.usdPerMillion.lambda} + ${f.usdPerMillion.sqs})`),
      row('unexplained duplicate sends / lost', (_, id) => `${checks(id, (c) => c.unexplainedDuplicates)} / ${checks(id, (c) => c.lost)}`),
      row('suppressed duplicates / redelivered records', (_, id) => `${checks(id, (c) => c.suppressedDuplicates)} / ${checks(id, (c) => c.redeliveries)}`),
    ],
  };
}

function roundsTable(result: LatencyScenarioResult): Table {
  const figuresOf = (round: number, id: LatencySenderId) => result.runs.find((r) => r.round === round && r.sender === id)?.figures;
  return {
    header: ['round', 'first', 'this sender msg/s', 'Powertools msg/s', 'ratio', 'p50/p99 ms (this / Powertools)', 'ratio at CPU share'],
    rows: result.rounds.map((r) => {
      const ours = figuresOf(r.round, 'this-sender');
      const theirs = figuresOf(r.round, 'powertools-batch');
      return [
        r.round,
        r.order[0] === 'this-sender' ? 'this sender' : 'Powertools',
        ours?.messagesPerSecondPerInstance ?? '-',
        theirs?.messagesPerSecondPerInstance ?? '-',
        ratioText(r.ratio),
        `${ours?.invocationMs.p50}/${ours?.invocationMs.p99} / ${theirs?.invocationMs.p50}/${theirs?.invocationMs.p99}`,
        ratioText(r.ratioAtMemoryCpuShare),
      ];
    }),
  };
}

/** The verdict line: median and range of the per-round ratios, and the goal met or not. */
export function verdictLine(result: LatencyScenarioResult): string {
  const { median, min, max } = result.ratio;
  const met = median >= THROUGHPUT_GOAL;
  return (
    `Messages per second per instance, this sender vs Powertools: median ${ratioText(median)} over ${result.settings.rounds} rounds ` +
    `(range ${ratioText(min)} to ${ratioText(max)}); goal >= ${THROUGHPUT_GOAL}x: ${met ? 'met' : 'NOT met'}. ` +
    `With CPU at ${result.settings.memoryMb} MB's vCPU share: median ${ratioText(result.ratioAtMemoryCpuShare.median)} ` +
    `(range ${ratioText(result.ratioAtMemoryCpuShare.min)} to ${ratioText(result.ratioAtMemoryCpuShare.max)}).`
  );
}

/** How the figures were made, one statement a line. */
export function latencyAssumptions(result: LatencyScenarioResult): string[] {
  const s = result.settings;
  const t = s.timing;
  return [
    describeLatency(s.providerLatency) + '; draws fixed per message key and attempt, so both senders wait alike for the same call.',
    describeLatency(s.dynamoLatency) + '; added per request attempt, inside the SDK retry loop, on top of dynalite on loopback.',
    `Workload: ${s.events} queue messages per run, ${s.duplicateRate * 100}% duplicates (half right behind their original), no faults; round r uses seed ${s.seed} + r for the workload and the latency draws.`,
    `Stack defaults: batch ${s.batchSize}, ${s.maxConcurrentSends} deliveries in flight per invocation (this sender; Powertools' BatchProcessor runs every record at once), ${s.memoryMb} MB.`,
    `Timeouts scaled like the main bench: function ${t.functionTimeoutMs / 1000} s, claim ${t.claimTimeoutMs / 1000} s, send ${t.sendTimeoutMs / 1000} s, visibility ${t.visibilityTimeoutMs / 1000} s.`,
    `Per instance: ${s.concurrency} execution environment working a backlog batch after batch; the rate is messages over the sum of its billed durations (each invocation's handler time rounded up to 1 ms), so idle waits for redeliveries do not count.`,
    `Messages are notification messages (each distinct event's recipients x channels, counted once); queue messages include the duplicates.`,
    `The CPU-share line adds CPU time x (${ONE_VCPU_MB}/${s.memoryMb} - 1): Lambda gives one vCPU at ${ONE_VCPU_MB} MB and a proportional share below; it takes this machine's core as one vCPU.`,
    `Prices (${PRICES.region}): Lambda arm64 $${PRICES.lambdaGbSecondArm64}/GB-s + $${PRICES.lambdaRequestPerMillion}/M requests; DynamoDB on-demand $${PRICES.dynamoWriteRequestUnitPerMillion}/M WRU, $${PRICES.dynamoReadRequestUnitPerMillion}/M RRU; SQS standard $${SQS_PRICES.requestPerMillion}/M requests (${SQS_PRICES.region}, per 64 KB chunk).`,
    `SQS requests are the Lambda event source's: one ReceiveMessage per batch and one DeleteMessageBatch per batch with an acknowledged record (empty polls, which depend on traffic rather than the sender, and the producer's SendMessage, the same for both, left out); nothing changed visibility (no throttling, so no backoff).`,
    `Rounds rotate the order after one discarded warm-up run per sender${s.balanced ? '; every sender went first equally often' : '; the round count is odd, so the order is NOT balanced'}. The machine is shared with other work, so single rounds are noisy; the median of the per-round ratios is the headline.`,
  ];
}

/** The scenario as plain text, for the terminal. */
export function formatLatencyText(result: LatencyScenarioResult): string {
  const pooled = pooledTable(result);
  const rounds = roundsTable(result);
  return [
    'Throughput where Lambda spends its time: provider and DynamoDB latency modelled, one execution environment per sender',
    '',
    textTable(pooled.header, pooled.rows),
    '',
    textTable(rounds.header, rounds.rows),
    verdictLine(result),
    '',
    ...latencyAssumptions(result),
  ].join('\n');
}

/** The scenario as a markdown section (its heading at `level`). */
export function formatLatencyMarkdown(result: LatencyScenarioResult, level = 2): string {
  const pooled = pooledTable(result);
  const rounds = roundsTable(result);
  const h = '#'.repeat(level);
  return [
    `${h} Throughput where Lambda spends its time (provider and DynamoDB latency modelled)`,
    '',
    `This sender against \`@aws-lambda-powertools/batch\` \`BatchProcessor\` + \`processPartialResponse\` with \`makeIdempotent\` per message on \`DynamoDBPersistenceLayer\`, set up as the Powertools docs' batch integration shows (bench/latency/powertools-batch-sender.ts says what was adapted).`,
    '',
    markdownTable(pooled.header, pooled.rows),
    '',
    markdownTable(rounds.header, rounds.rows),
    '',
    `**${verdictLine(result)}**`,
    '',
    ...latencyAssumptions(result).map((l) => `- ${l}`),
    '',
  ].join('\n');
}

/** Rounded copy for JSON: the raw runs plus the tables' inputs. */
export function latencyJson(result: LatencyScenarioResult): unknown {
  return {
    ...result,
    rounds: result.rounds.map((r) => ({ ...r, ratio: round(r.ratio, 3), ratioAtMemoryCpuShare: round(r.ratioAtMemoryCpuShare, 3) })),
    ratio: { median: round(result.ratio.median, 3), min: round(result.ratio.min, 3), max: round(result.ratio.max, 3) },
    ratioAtMemoryCpuShare: {
      median: round(result.ratioAtMemoryCpuShare.median, 3),
      min: round(result.ratioAtMemoryCpuShare.min, 3),
      max: round(result.ratioAtMemoryCpuShare.max, 3),
    },
  };
}
