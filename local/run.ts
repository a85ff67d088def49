/**
 * `npm start`: the real sender and reclaimer on this machine against local AWS on loopback,
 * no AWS account needed.
 *
 *   npm start                                  # examples/order-events.jsonl
 *   npm start -- my-events.jsonl               # any JSON-lines file
 *   cat events.jsonl | npm start -- -          # stdin
 *   npm start -- --data .local-data/ledger     # keep the ledger between runs
 *   npm start -- --templates my-templates/     # render with another templates folder
 *   npm start -- --outcome-feed feed.jsonl     # write the outcome feed there (default .local-data/outcome-feed.jsonl)
 */
import { existsSync } from 'node:fs';
import { TemplateValidationError } from '../functions/core/template-checks/template-problems';
import { integerOption, numberOption, parseCommandLine, runCommandLine, UsageError } from './command-line';
import { readInputLines, rebaseTimestamps } from './input-lines';
import { closingNote } from './closing-note';
import { EXAMPLE_SEEDS, formatLocalSummary, runLocal } from './local-runner';
import { DEFAULT_OUTCOME_FEED_FILE } from './outcome-feed';

const USAGE = `usage: npm start -- [file | -] [--data DIR] [--templates DIR] [--outcome-feed FILE] [--rate N] [--concurrency N] [--keep-timestamps] [--[no-]keep-open] [--sms-provider sns|end-user-messaging] [--verbose]

  file | -           JSON-lines events (default examples/order-events.jsonl; - reads stdin)
  --data DIR         persist the ledger in DIR (LevelDB); default in memory
  --templates DIR    template files to render (default templates/; checked as at a cold start)
  --outcome-feed F   write the outcome events producers would receive to F, one JSON line each
                     (default ${DEFAULT_OUTCOME_FEED_FILE}, emptied at the start; the page shows them too)
  --rate N           events sent to the local queue per second (default 20)
  --concurrency N    the event source's maximum concurrent invocations (default 4)
  --keep-timestamps  do not shift occurredAt so that the newest event is now
  --keep-open        after the summary, keep the mailbox page up until Ctrl-C
                     (default on when stdout is a terminal; --no-keep-open to exit)
  --sms-provider P   sns (default) or end-user-messaging: texts through the local End User Messaging, whose
                     page shows them and their events (delivered to the ledger by the status handler)
  --verbose          every structured log line as JSON on stderr
`;

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine({
    allowPositionals: true,
    allowNegative: true,
    options: {
      data: { type: 'string' },
      templates: { type: 'string' },
      'outcome-feed': { type: 'string', default: DEFAULT_OUTCOME_FEED_FILE },
      rate: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '4' },
      'keep-timestamps': { type: 'boolean', default: false },
      'keep-open': { type: 'boolean', default: process.stdout.isTTY === true },
      verbose: { type: 'boolean', default: false },
      'sms-provider': { type: 'string', default: 'sns' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length > 1) throw new UsageError(`one events file at most (got ${positionals.length}: ${positionals.join(' ')})`);
  const source = positionals[0] ?? 'examples/order-events.jsonl';
  if (source !== '-' && !existsSync(source)) throw new UsageError(`no events file ${source}`);
  if (values.templates !== undefined && !existsSync(values.templates)) throw new UsageError(`no templates folder ${values.templates}`);
  const rate = numberOption('rate', values.rate, { above: 0, max: 10_000 });
  const concurrency = integerOption('concurrency', values.concurrency, { min: 1, max: 1_000 });
  const raw = await readInputLines(source);
  // The example events show consent at work (member-3 unsubscribed from marketing on SES's side, member-4's number
  // replied STOP) and channel fallback (buyer-60's push endpoint is disabled: the e-mail instead).
  const examples = source === 'examples/order-events.jsonl';
  const lines = values['keep-timestamps'] ? raw : rebaseTimestamps(raw, Date.now());
  let pages: readonly string[] = [];
  const smsProvider = values['sms-provider'];
  if (smsProvider !== 'sns' && smsProvider !== 'end-user-messaging') throw new UsageError(`--sms-provider must be sns or end-user-messaging (got "${smsProvider}")`);
  await runLocal({
    lines,
    smsProvider,
    rate,
    concurrency,
    verbose: values.verbose,
    ...(values.data ? { dataDir: values.data } : {}),
    ...(values.templates ? { templatesDir: values.templates } : {}),
    outcomeFeedFile: values['outcome-feed'],
    ...(examples ? EXAMPLE_SEEDS : {}),
    onStarted: (aws, _lanes, ledgerPage, outcomeFeed) => {
      pages = [`mailbox ${aws.ses.mailboxUrl}`, `SMS and push ${aws.sns.outboxUrl}`, `ledger ${ledgerPage.url}`, `outcome feed ${outcomeFeed.page.url}`];
    },
    beforeStop: async (summary) => {
      process.stdout.write(`\n${formatLocalSummary(summary)}\n`);
      if (!values['keep-open']) {
        process.stdout.write(`\n${closingNote({ stdoutIsTerminal: process.stdout.isTTY === true })}\n`);
        return;
      }
      process.stdout.write(`\nPages still open (${pages.join(', ')}) — press Ctrl-C to stop.\n`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    },
  });
}

await runCommandLine(USAGE, main, [TemplateValidationError]);
