/**
 * `npm run bench:cold-start`: where the sender's cold import goes, beside the Powertools baseline's.
 *
 * 1. Three assets, their cold imports timed as bench/bundles.ts times them (interleaved rounds): the sender,
 *    the sender with its handler cut to the same imports and no cold-start work, and the baseline.
 * 2. The sender's cold-start steps, each timed inside the asset (CPU of the process around the step),
 *    over fresh Node.js processes of the `node` devDependency (the default Lambda runtime's major).
 * 3. What loads on first use instead (issue 50): the SNS, End User Messaging and SQS clients with their modules, and
 *    the reclaimer's delivery code (with its run's first stale row).
 *
 * Both variants are the stack's build of functions/sender/handler.ts with that one file rewritten; a step
 * the rewrite cannot find fails the run, so a change to the handler cannot silently skip one.
 * Writes bench/results/cold-start-steps.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { HANDLER_FILE } from '../lib/function-bundle';
import { quantile, round } from '../local/stats';
import { markdownTable, textTable } from '../local/text-table';
import { deployedBuildOptions } from './bundle-build';
import { BUNDLE_TARGETS } from './bundle-size';
import { LAMBDA_NODE, timeColdImports } from './cold-import';
import { DEFAULT_NOTIFIER_RUNTIME, type NotifierRuntime, runtimeViolations } from '../lib/lambda-runtime';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';

const USAGE = 'usage: npm run bench:cold-start -- [--runs N] [--out DIR] [--runtime nodejs22.x --node PATH]\n';
const values = commandLineOrExit(USAGE, () => {
  const { values: raw } = parseCommandLine({
    options: { runs: { type: 'string', default: '15' }, out: { type: 'string' }, runtime: { type: 'string' }, node: { type: 'string' } },
  });
  const runtime = (raw.runtime ?? DEFAULT_NOTIFIER_RUNTIME) as NotifierRuntime;
  const problems = runtimeViolations(runtime);
  if (problems.length > 0) throw new Error(problems.join('; '));
  if ((runtime === DEFAULT_NOTIFIER_RUNTIME) !== (raw.node === undefined)) {
    throw new Error(`--node names the Node.js binary of --runtime ${runtime}: both or neither (the default is the node devDependency's)`);
  }
  return { runs: integerOption('runs', raw.runs, { min: 1, max: 1000 }), out: raw.out, runtime, node: raw.node ?? LAMBDA_NODE };
});
const RESULTS = resolve(values.out ?? join(import.meta.dirname, 'results'));
const runs = values.runs;

const SENDER_HANDLER = resolve(import.meta.dirname, '..', 'functions', 'sender', 'handler.ts');
const sender = BUNDLE_TARGETS.find((t) => t.name === 'sender');
const reclaimer = BUNDLE_TARGETS.find((t) => t.name === 'reclaimer');
const baseline = BUNDLE_TARGETS.find((t) => t.role === 'baseline');
if (!sender || !reclaimer || !baseline) throw new Error('bench/bundle-size.ts names no sender, reclaimer or baseline');

/** The handler's cold-start statements, in order, as the source writes them; each is one step. */
const STEPS: ReadonlyArray<{ readonly name: string; readonly statement: string }> = [
  { name: 'templates read (checked at synth)', statement: 'const templates = loadShippedTemplates();' },
  { name: 'configuration and its invariants', statement: 'const config = loadSenderConfig(process.env);' },
  { name: 'Logger and Metrics', statement: 'const observability = createLambdaObservability(SERVICE.sender);' },
  { name: 'dead-letter sink (SQS on first use)', statement: 'const deadLetters = createDeadLetters(config);' },
  { name: 'SES client (SNS on first use)', statement: 'const sendClients = createLambdaSendClients(config);' },
  { name: 'SES GetAccount read started', statement: 'const ready = createSendRateGovernor(config, sendClients?.ses, observability.log)' },
];

/**
 * What loads on first use, not at cold start (issue 50): each row, in a fresh process after the asset's cold import,
 * imports the chunks and builds the client, as the first text, push or dead letter of an environment does.
 */
const FIRST_USES: ReadonlyArray<{
  readonly name: string;
  readonly chunks: readonly string[];
  /** The client factory the chunks export, called once; none when the chunk is code only. */
  readonly client?: string;
  /** @default 'sender' (its End User Messaging build, which has every chunk) */
  readonly asset?: 'sender' | 'reclaimer';
}> = [
  { name: 'first text or push through SNS: provider and client', chunks: ['sns-provider', 'sns-client'], client: 'newSnsClient' },
  { name: 'first text through End User Messaging: provider and client', chunks: ['eum-sms-provider', 'eum-client'], client: 'newEumClient' },
  { name: 'first dead letter or back-off: SQS client', chunks: ['sqs-dead-letters', 'sqs-client'], client: 'newSqsClient' },
  { name: 'reclaimer, first stale row of a run: the delivery code', chunks: ['settle-stale-row'], asset: 'reclaimer' },
];

function replaceOnce(source: string, find: string, replacement: string): string {
  const at = source.indexOf(find);
  if (at < 0 || source.indexOf(find, at + 1) >= 0) throw new Error(`functions/sender/handler.ts: expected "${find}" exactly once`);
  return source.slice(0, at) + replacement + source.slice(at + find.length);
}

/** The handler with a CPU mark after each step; the marks go to stderr once the module has run. */
function instrumented(source: string): string {
  let out = `let __cpu = process.cpuUsage(); const __steps: [string, number][] = [];\n` +
    `const __mark = (name: string) => { const u = process.cpuUsage(__cpu); __steps.push([name, (u.user + u.system) / 1000]); __cpu = process.cpuUsage(); };\n` +
    source;
  for (const [i, step] of STEPS.entries()) {
    const last = i === STEPS.length - 1;
    // The last statement runs on into a .then(...): its mark follows the whole statement, at the module's end.
    out = replaceOnce(out, step.statement, last ? step.statement : `__mark('(before)'); ${step.statement} __mark(${JSON.stringify(step.name)});`);
  }
  return `${out}\n__mark(${JSON.stringify(STEPS.at(-1)?.name)}); process.stderr.write('COLD_START_STEPS ' + JSON.stringify(__steps) + '\\n');\n`;
}

/** The same imports, bound so esbuild keeps every module, and no cold-start work. */
function importsOnly(source: string): string {
  const imports = [...source.matchAll(/^import (?!type)[^;]*from '([^']+)';$/gm)].map((m) => m[1] ?? '');
  if (imports.length === 0) throw new Error('functions/sender/handler.ts: no imports found');
  return `${imports.map((path, i) => `import * as m${i} from '${path}';`).join('\n')}\n` +
    `(globalThis as Record<string, unknown>).__modules = [${imports.map((_, i) => `m${i}`).join(', ')}];\n` +
    `export const handler = async () => ({ batchItemFailures: [] });\n`;
}

async function buildVariant(
  dir: string,
  name: string,
  source: string | undefined,
  entry = sender!.entry,
  smsProvider: 'sns' | 'end-user-messaging' = 'sns',
): Promise<string> {
  const out = join(dir, name);
  mkdirSync(out);
  const options = deployedBuildOptions(entry, { runtime: values.runtime, smsProvider });
  const build = await esbuild.build({
    ...options,
    plugins: source === undefined ? options.plugins : [...(options.plugins ?? []), {
      name: 'sender-handler-variant',
      setup(b) {
        b.onLoad({ filter: /handler\.ts$/ }, (args) => (args.path === SENDER_HANDLER ? { contents: source, loader: 'ts', resolveDir: resolve(SENDER_HANDLER, '..') } : undefined));
      },
    }],
  });
  for (const file of build.outputFiles) writeFileSync(join(out, file.path.split('/').pop() ?? ''), file.contents);
  return join(out, HANDLER_FILE);
}

function timeSteps(file: string, env: Readonly<Record<string, string>>, count: number): Map<string, number[]> {
  const steps = new Map<string, number[]>();
  for (let i = 0; i < count; i += 1) {
    const child = spawnSync(values.node, ['--input-type=module', '-e', `process.stdout; process.stderr; await import(${JSON.stringify(`file://${file}`)}); process.exit(0);`], {
      cwd: resolve(file, '..'),
      env: { ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = child.stderr.split('\n').find((l) => l.startsWith('COLD_START_STEPS '));
    if (!line) throw new Error(`the instrumented sender printed no steps: ${child.stderr.slice(0, 400)}`);
    for (const [name, ms] of JSON.parse(line.slice('COLD_START_STEPS '.length)) as [string, number][]) {
      if (name !== '(before)') steps.set(name, [...(steps.get(name) ?? []), ms]);
    }
  }
  return steps;
}

/** CPU of each first use, in fresh processes after its asset's cold import (the sender's End User Messaging build has every chunk). */
function timeFirstUses(assets: Readonly<Record<'sender' | 'reclaimer', { readonly file: string; readonly env: Readonly<Record<string, string>> }>>, count: number): Map<string, number[]> {
  const times = new Map<string, number[]>();
  for (const use of FIRST_USES) {
    const { file, env } = assets[use.asset ?? 'sender'];
    const files = readdirSync(resolve(file, '..'));
    const chunks = use.chunks.map((prefix) => {
      const found = files.find((f) => new RegExp(`^${prefix}-[A-Z0-9]+\\.mjs$`).test(f));
      if (!found) throw new Error(`no ${prefix} chunk in the asset: is it still loaded on first use?`);
      return pathToFileURL(join(resolve(file, '..'), found)).href;
    });
    const script =
      `process.stdout; process.stderr; await import(${JSON.stringify(pathToFileURL(file).href)}); const c = process.cpuUsage(); ` +
      `const modules = await Promise.all(${JSON.stringify(chunks)}.map((u) => import(u))); ` +
      (use.client
        ? `const make = modules.map((m) => m[${JSON.stringify(use.client)}]).find((f) => typeof f === 'function'); if (!make) throw new Error('no ${use.client}'); make(10000); `
        : '') +
      `const u = process.cpuUsage(c); process.stdout.write(String((u.user + u.system) / 1000)); process.exit(0);`;
    for (let i = 0; i < count; i += 1) {
      const child = spawnSync(values.node, ['--input-type=module', '-e', script], { cwd: resolve(file, '..'), env: { ...env }, encoding: 'utf8', timeout: 60_000 });
      const ms = Number(child.stdout);
      if (!Number.isFinite(ms) || child.stdout === '') throw new Error(`${use.name}: ${child.stderr.slice(0, 400)}`);
      times.set(use.name, [...(times.get(use.name) ?? []), ms]);
    }
  }
  return times;
}

const load = loadavg()[0]?.toFixed(1);
const dir = mkdtempSync(join(tmpdir(), 'notifier-bench-cold-start-'));
try {
  const source = readFileSync(SENDER_HANDLER, 'utf8');
  const files = {
    sender: await buildVariant(dir, 'sender', undefined),
    importsOnly: await buildVariant(dir, 'imports-only', importsOnly(source)),
    baseline: await buildVariant(dir, 'baseline', undefined, baseline.entry),
    instrumented: await buildVariant(dir, 'instrumented', instrumented(source)),
    firstUse: await buildVariant(dir, 'first-use', undefined, sender.entry, 'end-user-messaging'),
    reclaimer: await buildVariant(dir, 'reclaimer', undefined, reclaimer.entry),
  };
  const names = { sender: 'sender', importsOnly: 'sender, imports only (no cold-start work)', baseline: baseline.name } as const;
  const times = timeColdImports(
    [
      { name: names.sender, file: files.sender, env: sender.env, node: values.node },
      { name: names.importsOnly, file: files.importsOnly, env: sender.env, node: values.node },
      { name: names.baseline, file: files.baseline, env: baseline.env, node: values.node },
    ],
    runs,
  );
  const baselineRuns = times.get(names.baseline) ?? [];
  const importRows = Object.values(names).map((name) => {
    const cpu = (times.get(name) ?? []).map((r) => r.cpuMs);
    const ratios = (times.get(name) ?? []).map((r, i) => r.cpuMs / (baselineRuns[i]?.cpuMs ?? Number.NaN));
    return [name, round(quantile(cpu, 0.5), 1), `${round(Math.min(...cpu), 1)}-${round(Math.max(...cpu), 1)}`, `${round(quantile(ratios, 0.5))}x (${round(Math.min(...ratios))}x-${round(Math.max(...ratios))}x)`];
  });
  const steps = timeSteps(files.instrumented, sender.env, runs);
  const stepRows = STEPS.map((s) => {
    const ms = steps.get(s.name) ?? [];
    return [s.name, round(quantile(ms, 0.5)), `${round(Math.min(...ms))}-${round(Math.max(...ms))}`];
  });
  const firstUses = timeFirstUses({ sender: { file: files.firstUse, env: sender.env }, reclaimer: { file: files.reclaimer, env: reclaimer.env } }, runs);
  const firstUseRows = FIRST_USES.map((use) => {
    const ms = firstUses.get(use.name) ?? [];
    return [use.name, round(quantile(ms, 0.5)), `${round(Math.min(...ms))}-${round(Math.max(...ms))}`];
  });
  const firstUseHeader = ['on first use (not at cold start)', 'CPU ms, median', 'range'];
  const importHeader = ['cold import', 'CPU ms, median', 'range', 'vs baseline, per round: median (range)'];
  const stepHeader = ['sender cold-start step', 'CPU ms, median', 'range'];
  const version = spawnSync(values.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load average ${load} when it started; built for ${values.runtime}, run on Node ${version}`;
  process.stdout.write(
    `${textTable(importHeader, importRows)}\n\n${textTable(stepHeader, stepRows)}\n\n${textTable(firstUseHeader, firstUseRows)}\n${runs} runs each; machine: ${machine}\n`,
  );
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'cold-start-steps.json'), `${JSON.stringify({ machine, runs, coldImports: importRows, steps: stepRows, firstUses: firstUseRows }, null, 2)}\n`);
  writeFileSync(
    join(RESULTS, 'cold-start-steps.md'),
    `# Where the sender's cold import goes\n\nMachine: ${machine}. ${runs} rounds of cold imports (interleaved, as bench/bundles.ts), ` +
      `then ${runs} instrumented cold starts, then each first use ${runs} times after a cold import (the End User Messaging build).\n\n` +
      `${markdownTable(importHeader, importRows)}\n\n${markdownTable(stepHeader, stepRows)}\n\n${markdownTable(firstUseHeader, firstUseRows)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
