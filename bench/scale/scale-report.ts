import { quantile, round } from '../../local/stats';
import type { ScaleRound } from './scale-round';
import type { ScaleSetting } from './scale-settings';

/** The model is right for a setting when its counted rounds' median throughput is within this share of the prediction. */
export const THROUGHPUT_TOLERANCE = 0.15;

/** One setting over its rounds. */
export interface ScaleSettingSummary {
  readonly setting: string;
  readonly rounds: number;
  /** Rounds where the machine was not the limit. */
  readonly counted: number;
  readonly predictedMessagesPerSecond: number;
  readonly measuredMessagesPerSecond: number;
  readonly ratio: { readonly median: number; readonly min: number; readonly max: number };
  /** Whether its throughput is compared (a duplicates mix is not: two paths of different lengths). */
  readonly comparesThroughput: boolean;
  readonly withinTolerance: boolean;
  /** Every round's measured write and read units per message equal the model's. */
  readonly unitsEqual: boolean;
  readonly predictedWriteUnits: number;
  readonly measuredWriteUnits: readonly number[];
  readonly lostOrDuplicated: number;
}

export interface ScaleSummary {
  readonly settings: readonly ScaleSettingSummary[];
  /** Settings whose throughput is within tolerance over counted rounds. */
  readonly throughputWithinTolerance: number;
  readonly throughputCompared: number;
  readonly unitsEqualEverywhere: boolean;
}

export function summariseScale(settings: readonly ScaleSetting[], rounds: readonly ScaleRound[]): ScaleSummary {
  const summaries = settings.map((setting): ScaleSettingSummary => {
    const all = rounds.filter((r) => r.setting === setting.id);
    const counted = all.filter((r) => r.machine.limits.length === 0);
    const ratios = counted.map((r) => r.ratio);
    const median = ratios.length > 0 ? quantile(ratios, 0.5) : Number.NaN;
    const compares = setting.comparesThroughput ?? true;
    return {
      setting: setting.id,
      rounds: all.length,
      counted: counted.length,
      predictedMessagesPerSecond: round(quantile(counted.map((r) => r.predicted.messagesPerSecond), 0.5), 1),
      measuredMessagesPerSecond: round(quantile(counted.map((r) => r.measured.messagesPerSecond), 0.5), 1),
      ratio: { median: round(median, 3), min: round(Math.min(...ratios), 3), max: round(Math.max(...ratios), 3) },
      comparesThroughput: compares,
      withinTolerance: compares && counted.length > 0 && Math.abs(median - 1) <= THROUGHPUT_TOLERANCE,
      unitsEqual:
        all.length > 0 &&
        all.every((r) => r.measured.writeUnitsPerMessage === round(r.predicted.writeUnitsPerMessage, 3) && r.measured.readUnitsPerMessage === round(r.predicted.readUnitsPerMessage, 3)),
      predictedWriteUnits: round(all[0]?.predicted.writeUnitsPerMessage ?? Number.NaN, 3),
      measuredWriteUnits: [...new Set(all.map((r) => r.measured.writeUnitsPerMessage))],
      lostOrDuplicated: all.reduce((n, r) => n + r.measured.lost + r.measured.unexplainedDuplicates, 0),
    };
  });
  return {
    settings: summaries,
    throughputWithinTolerance: summaries.filter((s) => s.withinTolerance).length,
    throughputCompared: summaries.filter((s) => s.comparesThroughput).length,
    unitsEqualEverywhere: summaries.every((s) => s.unitsEqual),
  };
}

const yes = (b: boolean) => (b ? 'yes' : '**no**');

/** The committed page: what was run, each round with its machine, each setting's verdict. */
export function formatScaleReport(settings: readonly ScaleSetting[], rounds: readonly ScaleRound[], summary: ScaleSummary): string {
  const lines: string[] = [];
  lines.push('# Scale simulation: the capacity model against measured throughput and write units', '');
  lines.push(
    'Written by `npm run bench:scale` (bench/scale-simulation.ts). Each setting drives the real sender (`createSenderHandler` on dynalite, ' +
      'limits counted in the same table) behind the local queue and Lambda event source (local/lambda-event-source.ts), with the latency ' +
      "bench's seeded lognormal provider (bench/latency/delayed-provider.ts) and DynamoDB latency (bench/latency/dynamo-latency.ts, per request " +
      'attempt). The prediction is lib/capacity-model/lane-throughput.ts, the code synth and docs/scale.md use, given the setting, the injected ' +
      "latencies and two costs of this machine measured in the round itself: dynalite's median time per request on loopback (calibrated " +
      'before the round, no latency injected) and the CPU per message of the simulation process; all simulated instances share that one ' +
      'event loop, so the lane is also bound at 1000 / CPU ms per message here (on Lambda each instance has its own CPU).',
    '',
    'Measured throughput: acknowledged records per second between the 10th and 90th percentile of acknowledgements (cold first batches ' +
      'and the last partial wave left out). Units: write units are the table units dynalite reports for successful writes (by item size), ' +
      'one per failed conditional write (DynamoDB bills the item, under 1 KB here), and the index entries local/gsi-write-model.ts counts; ' +
      "read units as reported, less dynalite's follow-up GetItem after a failed condition (DynamoDB returns the item). The model's units are " +
      'lib/capacity-model/ledger-capacity.ts per path. A round counts when the machine was not the limit (bench/pace: machine under 80% busy, ' +
      'simulation event-loop p99 under 200 ms); each round waits first for a 2-second sample under 50% busy.',
    '',
  );
  lines.push('## Verdict per setting', '');
  lines.push('| setting | varies | rounds (counted) | predicted msg/s | measured msg/s (median) | measured / predicted: median (range) | within 15% | WU/msg predicted | WU/msg measured | units equal | lost or duplicated |');
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: |');
  for (const s of summary.settings) {
    const setting = settings.find((x) => x.id === s.setting);
    lines.push(
      `| ${s.setting} | ${setting?.varies ?? ''} | ${s.rounds} (${s.counted}) | ${s.predictedMessagesPerSecond} | ${s.measuredMessagesPerSecond} | ` +
        `${s.ratio.median} (${s.ratio.min} to ${s.ratio.max}) | ${s.comparesThroughput ? yes(s.withinTolerance) : 'not compared (two paths)'} | ` +
        `${s.predictedWriteUnits} | ${s.measuredWriteUnits.join(', ')} | ${yes(s.unitsEqual)} | ${s.lostOrDuplicated} |`,
    );
  }
  lines.push(
    '',
    `**Throughput within 15% of the model: ${summary.throughputWithinTolerance} of ${summary.throughputCompared} settings compared. ` +
      `Write and read units per message equal to the model's in every round: ${summary.unitsEqualEverywhere ? 'yes' : 'NO'}.**`,
    '',
  );
  lines.push('## Every round, with the machine', '');
  lines.push(
    '| setting | round | messages (+ duplicates) | loopback ms/request | CPU ms/message | predicted msg/s (bound) | measured msg/s | ratio | WU/msg | RU/msg | load avg 1/5 min | machine busy | simulation / dynalite cores | loop p99 ms | counts |',
  );
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: | --- |');
  for (const r of rounds) {
    const m = r.machine;
    lines.push(
      `| ${r.setting} | ${r.round} | ${r.messages}${r.duplicates ? ` (+${r.duplicates})` : ''} | ${r.local.ledgerOverheadMs} | ${r.local.cpuMsPerMessage} | ` +
        `${round(r.predicted.messagesPerSecond, 1)} (${r.predicted.binding}) | ${r.measured.messagesPerSecond} | ${r.ratio} | ${r.measured.writeUnitsPerMessage} | ` +
        `${r.measured.readUnitsPerMessage} | ${m.loadAverage[0]} / ${m.loadAverage[1]} | ${m.machineBusyPercent}% | ${m.simulationCores} / ${m.dynaliteCores} | ` +
        `${m.eventLoopDelayP99Ms} | ${m.limits.length === 0 ? 'yes' : `no: ${m.limits.join('; ')}`} |`,
    );
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}
