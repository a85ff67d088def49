/**
 * `npm run bench:scale`: the scale simulation. Runs each setting of bench/scale/scale-settings.ts through the real
 * sender behind the local queue and event source, with the latency bench's injected provider and DynamoDB latencies,
 * and writes the capacity model's prediction beside each measurement to bench/results/scale-simulation.{json,md}.
 * Rounds go setting by setting in turn (not one setting's rounds back to back), each after the machine has been
 * quiet for a moment (`--max-wait` seconds at most); a round where the machine was the limit is recorded and not
 * counted. `--add` keeps the rounds already in the results and adds this run's, so a later run on a quieter machine
 * can add counted rounds for `--only` some settings without dropping any.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalDynamo } from '../local/local-dynamo';
import { waitForQuietMachine } from './scale/quiet-machine';
import { laneModel, NOMINAL_COSTS } from './scale/scale-prediction';
import { formatScaleReport, summariseScale } from './scale/scale-report';
import { runScaleRound, type ScaleRound } from './scale/scale-round';
import { SCALE_SETTINGS, type ScaleSetting } from './scale/scale-settings';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    seed: { type: 'string', default: '300' },
    only: { type: 'string' },
    out: { type: 'string' },
    'max-wait': { type: 'string', default: '180' },
    add: { type: 'boolean', default: false },
  },
});
const rounds = Math.max(1, Number(values.rounds));
const seconds = Math.max(2, Number(values.seconds));
const settings = values.only ? SCALE_SETTINGS.filter((s) => values.only?.split(',').includes(s.id)) : SCALE_SETTINGS;
const results = resolve(values.out ?? join(import.meta.dirname, 'results'));
const maxWaitMs = Math.max(0, Number(values['max-wait'])) * 1000;
// --add keeps the rounds already written and adds this run's (numbered after them): every round stays on record.
const earlier: ScaleRound[] = values.add && existsSync(join(results, 'scale-simulation.json'))
  ? (JSON.parse(readFileSync(join(results, 'scale-simulation.json'), 'utf8')) as { rounds: ScaleRound[] }).rounds
  : [];
const firstRound = Math.max(0, ...earlier.map((r) => r.round)) + 1;
const started = Date.now();
const log = (line: string) => process.stderr.write(`[${Math.round((Date.now() - started) / 1000)} s] ${line}\n`);

/** Messages for about `seconds` of the model's throughput at nominal costs, at least 200. */
function messagesFor(setting: ScaleSetting): number {
  const messages = Math.max(200, Math.round(laneModel(setting, NOMINAL_COSTS).messagesPerSecond * seconds));
  return Math.round(messages / (1 + (setting.duplicateShare ?? 0)));
}

const dynamo = await startLocalDynamo({ separateProcess: true });
const all: ScaleRound[] = [...earlier];
try {
  for (let r = firstRound; r < firstRound + rounds; r += 1) {
    for (const setting of settings) {
      const quiet = await waitForQuietMachine({ log, maxWaitMs });
      const seed = Number(values.seed) + r * 100 + SCALE_SETTINGS.indexOf(setting);
      log(`round ${r}, ${setting.id} (${setting.varies}): machine ${quiet.busyPercent}% busy after ${Math.round(quiet.waitedMs / 1000)} s`);
      const result = await runScaleRound(setting, r, seed, dynamo, messagesFor(setting));
      all.push(result);
      log(
        `  measured ${result.measured.messagesPerSecond}/s, predicted ${Math.round(result.predicted.messagesPerSecond * 10) / 10}/s ` +
          `(x${result.ratio}); WU/message ${result.measured.writeUnitsPerMessage} vs ${result.predicted.writeUnitsPerMessage}; ` +
          `machine ${result.machine.machineBusyPercent}% busy, loop p99 ${result.machine.eventLoopDelayP99Ms} ms${result.machine.limits.length ? ` (NOT COUNTED: ${result.machine.limits.join('; ')})` : ''}`,
      );
    }
  }
} finally {
  await dynamo.stop();
}
const ran = SCALE_SETTINGS.filter((s) => all.some((r) => r.setting === s.id));
const summary = summariseScale(ran, all);
writeFileSync(join(results, 'scale-simulation.json'), `${JSON.stringify({ settings: ran, rounds: all, summary }, null, 2)}\n`);
writeFileSync(join(results, 'scale-simulation.md'), formatScaleReport(ran, all, summary));
log(`results written to ${results}`);
