import { formatReport } from '../local/simulation-report';
import { parseSimulateArgs, SIMULATE_USAGE, UsageError } from '../local/simulate-options';
import { runSimulation } from '../local/simulate';
import { wireVerdictHolds } from '../local/aws/wire-verdict';
import { runWireSimulation } from '../local/wire-simulation';
import { formatWireReport } from '../local/wire-simulation-report';

/** Where the command writes; injectable for tests. */
export interface SimulateCommandIo {
  /** @default process.stdout */
  readonly out?: (text: string) => void;
  /** @default process.stderr */
  readonly err?: (text: string) => void;
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
  const interactive = !parsed.json && process.stderr.isTTY;
  if (parsed.wire) {
    const report = await runWireSimulation({
      ...parsed.wire,
      onProgress: (p) => {
        const line = `injected ${p.injected}/${p.total}, in queue ${p.inQueue}, sent ${p.sent}, ${Math.round(p.elapsedMs / 1000)} s`;
        if (interactive) err(`\r${line}   `);
        else if (!parsed.json) err(`${line}\n`);
      },
    });
    if (interactive) err('\n');
    out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatWireReport(report)}\n`);
    return wireVerdictHolds(report.verdict) ? 0 : 1;
  }
  let lastLine = '';
  const report = await runSimulation({
    ...parsed.options,
    onProgress: (p) => {
      const line = `injected ${p.injected}/${p.total}, acknowledged ${p.acked}, in queue ${p.inQueue}`;
      if (interactive) err(`\r${line}, ${Math.round(p.elapsedMs / 1000)} s   `);
      else if (!parsed.json && line !== lastLine) err(`${line}, ${Math.round(p.elapsedMs / 1000)} s\n`);
      lastLine = line;
    },
  });
  if (interactive) err('\n');
  out(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.invariants.ok ? 0 : 1;
}
