/**
 * `npm start`: the real sender and reclaimer on this machine, no AWS account needed.
 *
 *   npm start                                  # examples/order-events.jsonl
 *   npm start -- my-events.jsonl               # any JSON-lines file
 *   cat events.jsonl | npm start -- -          # stdin
 *   npm start -- --data .local-data/ledger     # keep the ledger between runs
 */
import { parseArgs } from 'node:util';
import { readInputLines, rebaseTimestamps } from './input-lines';
import { formatLocalSummary, runLocal } from './local-runner';

const USAGE = `usage: npm start -- [file | -] [--data DIR] [--outbox FILE] [--rate N] [--concurrency N] [--keep-timestamps] [--verbose]

  file | -           JSON-lines events (default examples/order-events.jsonl; - reads stdin)
  --data DIR         persist the ledger in DIR (LevelDB); default in memory
  --outbox FILE      provider calls go here (default .outbox/local-outbox.jsonl)
  --rate N           events injected per second (default 20)
  --concurrency N    concurrent simulated Lambda invocations (default 4)
  --keep-timestamps  do not shift occurredAt so that the newest event is now
  --verbose          every structured log line as JSON on stderr
`;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string' },
    outbox: { type: 'string', default: '.outbox/local-outbox.jsonl' },
    rate: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
    'keep-timestamps': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const source = positionals[0] ?? 'examples/order-events.jsonl';
const raw = await readInputLines(source);
const lines = values['keep-timestamps'] ? raw : rebaseTimestamps(raw, Date.now());
const summary = await runLocal({
  lines,
  outboxFile: values.outbox,
  rate: Number(values.rate),
  concurrency: Number(values.concurrency),
  verbose: values.verbose,
  ...(values.data ? { dataDir: values.data } : {}),
});
process.stdout.write(`\n${formatLocalSummary(summary)}\n`);
