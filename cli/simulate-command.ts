import { formatAttackReport, runAttackSimulation } from '../local/attack-simulation';
import { formatConsentReport } from '../local/consent-report';
import { runConsentSimulation } from '../local/consent-simulation';
import { ProgressLine, type ProgressStream } from '../local/progress-line';
import { formatReport } from '../local/simulation-report';
import { parseSimulateArgs, SIMULATE_USAGE, UsageError } from '../local/simulate-options';
import { runSimulation } from '../local/simulate';
import { runWireSimulation, wireRunHolds } from '../local/wire-simulation';
import { formatWireReport } from '../local/wire-simulation-report';

/** Where the command writes; injectable for tests. */
export interface SimulateCommandIo {
  /** @default process.stdout */
  readonly out?: (text: string) => void;
  /** @default process.stderr */
  readonly err?: (text: string) => void;
  /** Where the progress line goes (redrawn in place when it is a terminal). @default process.stderr */
  readonly progress?: ProgressStream;
}

/** `npx notifier simulate`: exit 0 when the invariants hold, 1 when not, 2 on usage errors. */
export async function run(argv: string[], io: SimulateCommandIo = {}): Promise<number> {
  const out = io.out ?? ((text: string) => void process.stdout.write(text));
  const err = io.err ?? ((text: string) => void process.stderr.write(text));
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let parsed;
  try {
    parsed = parseSimulateArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n\n${SIMULATE_USAGE}`);
    return 2;
  }
  if (parsed.help) {
    out(SIMULATE_USAGE);
    return 0;
  }
  // With --json, stdout is the report and stderr stays quiet.
  const progress = parsed.json ? undefined : new ProgressLine(io.progress ?? process.stderr);
  if (parsed.attack) {
    const report = await runAttackSimulation(parsed.attack);
    out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatAttackReport(report)}\n`);
    return report.ok ? 0 : 1;
  }
  if (parsed.consent) {
    const report = await runConsentSimulation(parsed.consent);
    out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatConsentReport(report)}\n`);
    return report.ok ? 0 : 1;
  }
  if (parsed.wire) {
    const report = await runWireSimulation({
      ...parsed.wire,
      onProgress: progress
        ? (p) => {
            const line = `injected ${p.injected}/${p.total}, in queue ${p.inQueue}, sent ${p.sent}`;
            // Queue messages no longer on the queue: acknowledged or dead-lettered.
            const done = Math.max(0, p.injected - p.inQueue);
            progress.update({ done, total: p.total, elapsedMs: p.elapsedMs, text: line, plain: `${line}, ${Math.round(p.elapsedMs / 1000)} s` });
          }
        : undefined,
    });
    progress?.end();
    out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatWireReport(report)}\n`);
    return wireRunHolds(report) ? 0 : 1;
  }
  let lastLine = '';
  const report = await runSimulation({
    ...parsed.options,
    onProgress: progress
      ? (p) => {
          const line = `injected ${p.injected}/${p.total}, acknowledged ${p.acked}, in queue ${p.inQueue}`;
          const plain = line !== lastLine ? `${line}, ${Math.round(p.elapsedMs / 1000)} s` : undefined;
          progress.update({ done: p.acked, total: p.total, elapsedMs: p.elapsedMs, text: line, plain });
          lastLine = line;
        }
      : undefined,
  });
  progress?.end();
  out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.invariants.ok ? 0 : 1;
}
