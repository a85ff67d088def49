import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { DEFAULT_TEMPLATES_DIR, readTemplateFiles } from '../functions/adapters/template-directory';
import { CHANNELS, type Channel } from '../functions/core/event/idempotency-key';
import { jsonRecord } from '../functions/core/json-objects';
import { largestPushPayloadBytes, PUSH_PAYLOAD_MAX_BYTES } from '../functions/core/templates/push-payload';
import { validate } from '../functions/core/schema';
import { smsSize } from '../functions/core/templates/sms-segments';
import { EMAIL_SUBJECT_MAX_CHARS, type TemplateFigures } from '../functions/core/template-checks/template-limits';
import { formatTemplateProblem } from '../functions/core/template-checks/template-problems';
import { checkTemplateFiles } from '../functions/core/template-checks/template-registry';
import { isTimeZone } from '../functions/core/event/time-zone-name';
import { defaultLocaleOf, localesOf, resolveTemplateLocale, variantIn } from '../functions/core/templates/template-locale';
import { renderTemplate, type RenderedContent, type TemplateValue } from '../functions/core/templates/templates';
import { smsEncodingNotes } from '../functions/core/template-checks/template-notes';
import { describeResolution, sampleData } from './template-preview';
import { textTable } from '../local/text-table';

/** Where the command writes; injectable for tests. */
export interface TemplatesCommandIo {
  /** @default process.stdout */
  readonly out?: (text: string) => void;
  /** @default process.stderr */
  readonly err?: (text: string) => void;
}

export const TEMPLATES_USAGE = `usage: notifier templates check [--dir DIR]
       notifier templates render <templateId> [--locale TAG] [--data FILE] [--time-zone ZONE] [--channel email|sms|push] [--dir DIR]

  check             validate every template file and translation as synth and the sender's cold start
                    do, and show each variant's worst case (every field at its maxLength) against the
                    channel limits
  render <id>       preview a template for a recipient whose locale is TAG: the variant chosen, the
                    chain walked to it, and each channel rendered with the data in FILE (a JSON object
                    of fields, or an event whose "data" it takes; default: sample values)

options:
  --dir DIR         the templates folder (default: templates/ of this package)
  --locale TAG      the recipient's BCP 47 locale (default: none, as an event without one)
  --data FILE       the data to render with (default: a sample value for each field)
  --time-zone ZONE  the recipient's IANA time zone, for date and time fields (default: none: UTC)
  --channel NAME    email, sms or push
  -h, --help        this text

Exit codes: 0 valid / rendered, 1 invalid templates or a render failure, 2 usage error.
`;

const DataSchema = jsonRecord(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()]));

class UsageError extends Error {}

/** `npx notifier templates check | render`. */
export async function run(argv: string[], io: TemplatesCommandIo = {}): Promise<number> {
  const out = io.out ?? ((text: string) => void process.stdout.write(text));
  const err = io.err ?? ((text: string) => void process.stderr.write(text));
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        dir: { type: 'string' },
        data: { type: 'string' },
        locale: { type: 'string' },
        'time-zone': { type: 'string' },
        channel: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [action, templateId, ...extra] = positionals;
    if (values.help) {
      out(TEMPLATES_USAGE);
      return 0;
    }
    const dir = values.dir ?? DEFAULT_TEMPLATES_DIR;
    if (action === 'check' && !templateId) return check(dir, out, err);
    if (action === 'render' && templateId && extra.length === 0) {
      const channel = values.channel;
      if (channel !== undefined && !CHANNELS.includes(channel as Channel)) throw new UsageError(`--channel must be one of ${CHANNELS.join(', ')}`);
      const timeZone = values['time-zone'];
      if (timeZone !== undefined && !isTimeZone(timeZone)) throw new UsageError(`--time-zone ${timeZone} is not an IANA time zone such as Europe/Vienna`);
      return render({ dir, templateId, dataFile: values.data, locale: values.locale, timeZone, only: channel as Channel | undefined }, out, err);
    }
    throw new UsageError(action ? `unexpected arguments: ${positionals.join(' ')}` : 'which action: check or render?');
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError && 'code' in error)) throw error;
    err(`${error.message}\n\n${TEMPLATES_USAGE}`);
    return 2;
  }
}

function loadChecked(dir: string, err: (text: string) => void) {
  if (!existsSync(dir)) {
    err(`no templates folder ${dir}\n`);
    return undefined;
  }
  const result = checkTemplateFiles(readTemplateFiles(dir));
  if (result.problems.length === 0) return result;
  err(`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in ${dir}:\n`);
  for (const problem of result.problems) err(`  - ${formatTemplateProblem(problem)}\n`);
  return undefined;
}

function check(dir: string, out: (text: string) => void, err: (text: string) => void): number {
  const result = loadChecked(dir, err);
  if (!result) return 1;
  const rows = result.templates.flatMap(({ template, figures, translationFigures }) => [
    [template.id, `${defaultLocaleOf(template)} (default)`, CHANNELS.filter((c) => template[c]).join(', '), ...figureCells(figures)],
    ...[...(translationFigures ?? new Map<string, TemplateFigures>())].map(([locale, own]) => [
      '',
      locale,
      CHANNELS.filter((c) => variantIn(template, locale)[c]).join(', '),
      ...figureCells(own),
    ]),
  ]);
  out(`${result.templates.length} valid template${result.templates.length === 1 ? '' : 's'} in ${dir}\n`);
  out('worst case of each variant, with every field at its declared maxLength:\n\n');
  out(`${textTable(['template', 'locale', 'channels', 'sms parts', 'subject chars', 'push bytes'], rows)}\n`);
  for (const note of smsEncodingNotes(result.templates)) out(`note: ${note}\n`);
  return 0;
}

function figureCells(figures: TemplateFigures): string[] {
  return [
    figures.sms ? `${figures.sms.segments}/${figures.sms.maxSegments} ${figures.sms.encoding}` : '-',
    figures.email ? `${figures.email.subjectChars}/${EMAIL_SUBJECT_MAX_CHARS}` : '-',
    figures.push ? `${figures.push.payloadBytes}/${PUSH_PAYLOAD_MAX_BYTES}` : '-',
  ];
}

interface RenderRequest {
  readonly dir: string;
  readonly templateId: string;
  readonly dataFile: string | undefined;
  readonly locale: string | undefined;
  readonly timeZone: string | undefined;
  readonly only: Channel | undefined;
}

function render({ dir, templateId, dataFile, locale, timeZone, only }: RenderRequest, out: (text: string) => void, err: (text: string) => void): number {
  const result = loadChecked(dir, err);
  if (!result) return 1;
  const found = result.templates.find(({ template }) => template.id === templateId);
  if (!found) {
    err(`no template "${templateId}" in ${dir} (there are: ${result.templates.map(({ template }) => template.id).join(', ')})\n`);
    return 1;
  }
  const data = dataFile === undefined ? sampleData(found.template) : readData(dataFile);
  const resolution = resolveTemplateLocale(found.template, locale);
  out(`${describeResolution(locale, resolution, localesOf(found.template))}\n`);
  const channels = only ? [only] : CHANNELS.filter((c) => variantIn(found.template, resolution.locale)[c]);
  const registry = new Map([[templateId, found.template]]);
  let failed = false;
  for (const channel of channels) {
    const rendered = renderTemplate(registry, templateId, channel, data, {
      locale: resolution.locale,
      formatLocale: resolution.formatLocale,
      ...(timeZone !== undefined ? { timeZone } : {}),
    });
    if (!rendered.ok) {
      err(`${channel}: ${rendered.reason}\n`);
      failed = true;
      continue;
    }
    out(`${describeContent(rendered.content)}\n`);
  }
  return failed ? 1 : 0;
}

function readData(file: string): Record<string, TemplateValue> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--data ${file}: ${(error as Error).message}`);
  }
  // An event file works too: its `data` is what the sender renders with.
  const candidate = typeof json === 'object' && json !== null && 'templateId' in json && 'data' in json ? json.data : json;
  const parsed = validate(DataSchema, candidate);
  if (!parsed.success) throw new UsageError(`--data ${file}: a JSON object of strings, numbers, booleans or nulls is needed`);
  return parsed.output;
}

function describeContent(content: RenderedContent): string {
  switch (content.channel) {
    case 'email':
      return [
        `== email (subject ${content.subject.length}/${EMAIL_SUBJECT_MAX_CHARS} characters)`,
        `subject: ${content.subject}`,
        '-- text',
        content.text,
        ...(content.html !== undefined ? ['-- html', content.html] : []),
      ].join('\n');
    case 'sms': {
      const size = smsSize(content.text);
      return [`== sms (${size.segments} part${size.segments === 1 ? '' : 's'}, ${size.encoding})`, content.text].join('\n');
    }
    case 'push': {
      const bytes = largestPushPayloadBytes(content.title, content.text);
      return [`== push (platform payload ${bytes}/${PUSH_PAYLOAD_MAX_BYTES} bytes)`, `title: ${content.title}`, `body: ${content.text}`].join('\n');
    }
  }
}
