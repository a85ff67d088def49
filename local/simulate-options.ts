import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from './command-line';
import { NO_FAULTS, type FaultRates } from './fault-plan';
import { SENDER_NAMES, type SenderName } from './senders/sender-under-test';
import type { AttackOptions } from './attack-simulation';
import type { ConsentSimulationOptions } from './consent-simulation';
import type { SimulationOptions } from './simulate';
import { wireFaults } from './aws/wire-fault-plan';
import type { WireSimulationOptions } from './wire-simulation';

/** The four crash points, as named on the command line. */
export const CRASH_POINTS = {
  'before-claim': 'crashBeforeClaim',
  'after-claim': 'crashAfterClaim',
  'after-send': 'crashAfterSend',
  'after-outcome': 'crashAfterOutcome',
} as const satisfies Record<string, keyof FaultRates>;

/** Fault rates `npx notifier simulate` uses unless told otherwise: every kind on, moderately. */
export const DEFAULT_CHAOS = {
  crashRate: 0.005,
  providerTimeout: 0.02,
  providerThrottle: 0.02,
  providerReject: 0.01,
  dynamoThrottle: 0.01,
} as const;

export const SIMULATE_USAGE = `usage: notifier simulate [options]

Runs the real sender handler behind a local at-least-once queue (dynalite on 127.0.0.1,
outbox provider, nothing leaves this machine) with injected faults, and reports per class.

workload
  --events <n>                queue messages to inject, duplicates included (default 1000)
  --duplicates <rate>         share of them that repeat an earlier event, 0..1 (default 0.3)
  --rate <n>                  injection rate, events per second (default 1000)
  --seed <n>                  seed for the workload and every fault decision (default 1)
execution
  --concurrency <n>           concurrent simulated Lambda invocations (default 16)
  --batch-size <n>            records per invocation (default 10)
  --sends-per-invocation <n>  deliveries in flight inside one invocation (default 1: reproducible per seed)
  --max-receive-count <n>     redrive policy before the DLQ (default 5)
  --sender <name>             ${SENDER_NAMES.join(' | ')} (default this-sender)
faults (rates are per opportunity, 0..1; each kind fires at most once per message and call site)
  --crash <points>            comma list of ${Object.keys(CRASH_POINTS).join(',')}, or none (default all)
  --crash-rate <rate>         rate at each chosen crash point (default ${DEFAULT_CHAOS.crashRate})
  --provider-timeouts <rate>  timeouts with unknown outcome; half of them reached the provider (default ${DEFAULT_CHAOS.providerTimeout})
  --provider-throttling <r>   provider refuses for now (default ${DEFAULT_CHAOS.providerThrottle})
  --provider-rejections <r>   provider rejects permanently (default ${DEFAULT_CHAOS.providerReject})
  --dynamodb-throttling <r>   ledger request throttled after SDK retries (default ${DEFAULT_CHAOS.dynamoThrottle})
  --no-faults                 all rates 0
on the wire (--wire): the stack's two lanes, each sender with the environment synth writes for its lane
and real SDK clients behind a fault-injecting proxy, a real SQS emulator and local SES v2 / SNS servers;
judged from the providers' own counts, per lane. --concurrency is the stack's maxConcurrency (the bulk
lane's, default 10), --batch-size, --sends-per-invocation (default 4) and --max-receive-count (default 100)
the stack's props too
  --wire                      run at the protocol level instead of through the ports
  --urgent-concurrency <n>    the stack's lanes.urgentMaxConcurrency (default 5)
  --wire-faults <rate>        rate of each wire fault per request (lost/delayed/reset/5xx on DynamoDB;
                              refusal, rejection, accepted-then-500, hang, lost answer at the providers) (default 0.01)
  --sms-provider <name>       sns (default) or end-user-messaging: texts through the local End User Messaging, its
                              events (1% late, 1% lost) on the stack's SNS -> SQS path into the real status handler
  --ledger-outage <seconds>   whole-ledger outages of this length at seeded times: every DynamoDB request fails
                              (4 in 5 refused, 1 in 5 executed with its answer lost) (default 0: none)
  --ledger-outage-every <s>   mean gap between outages, each drawn from 0.5x to 1.5x it, the first from 0 to
                              0.5x after the first ledger request (default 30)
abuse (--attack): SMS pumping to premium blocks and to countries outside the SMS list, 200 legitimate
users tapping "resend code" 1-9 times, every event delivered 1-3 times with crashes and lost responses;
judged from the provider's side (sends per user, per block, outside the list; counted twice; lost)
  --attack                    run the attack scenario (with --seed; the other workload options do not apply)
consent (--consent): recipients across time zones, some unsubscribed or opted out before or during the run,
a marketing e-mail and text a day at hours that are night somewhere, codes and order updates at any hour,
through the real sender and status function, local SES (contact list) and SNS (STOP), on a virtual clock;
judged from the providers' side (bulk texts in quiet hours, bulk sends after a known withdrawal, codes and
order updates held or stopped by consent)
  --consent                   run the consent scenario (with --seed)
  --recipients <n>            recipients of the consent scenario (default 300)
output
  --json                      the full report as JSON
  --outbox <file>             keep every provider call in this JSON-lines file
  -h, --help                  this text

Exit code: 0 when the invariants hold (0 unexplained duplicates, 0 lost), 1 when not, 2 on usage errors.
`;

export { UsageError } from './command-line';

export interface ParsedSimulateArgs {
  readonly help: boolean;
  readonly json: boolean;
  readonly options: SimulationOptions;
  /** Set with --wire: run at the protocol level. @default undefined (port level) */
  readonly wire?: WireSimulationOptions;
  /** Set with --attack: the SMS-pumping scenario. @default undefined */
  readonly attack?: AttackOptions;
  /** Set with --consent: the consent and quiet-hours scenario. @default undefined */
  readonly consent?: ConsentSimulationOptions;
}

/** Parses `notifier simulate` arguments into simulation options. */
export function parseSimulateArgs(argv: readonly string[]): ParsedSimulateArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        events: { type: 'string' },
        duplicates: { type: 'string' },
        rate: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        'urgent-concurrency': { type: 'string' },
        'batch-size': { type: 'string' },
        'sends-per-invocation': { type: 'string' },
        'max-receive-count': { type: 'string' },
        sender: { type: 'string' },
        crash: { type: 'string' },
        'crash-rate': { type: 'string' },
        'provider-timeouts': { type: 'string' },
        'provider-throttling': { type: 'string' },
        'provider-rejections': { type: 'string' },
        'dynamodb-throttling': { type: 'string' },
        'no-faults': { type: 'boolean', default: false },
        wire: { type: 'boolean', default: false },
        attack: { type: 'boolean', default: false },
        consent: { type: 'boolean', default: false },
        recipients: { type: 'string' },
        'wire-faults': { type: 'string' },
        'ledger-outage': { type: 'string' },
        'sms-provider': { type: 'string' },
        'ledger-outage-every': { type: 'string' },
        json: { type: 'boolean', default: false },
        outbox: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const int = (name: string, raw: string | undefined, min: number, max: number): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return n;
  };
  const rate = (name: string, raw: string | undefined, fallback: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!(n >= 0 && n <= 1)) throw new UsageError(`--${name} must be a number from 0 to 1 (got "${raw}")`);
    return n;
  };
  if (values.outbox !== undefined && !existsSync(dirname(resolve(values.outbox)))) {
    throw new UsageError(`--outbox: no folder ${dirname(resolve(values.outbox))} to write ${values.outbox} in`);
  }
  const sender = values.sender ?? 'this-sender';
  if (!(SENDER_NAMES as readonly string[]).includes(sender)) throw new UsageError(`--sender must be one of ${SENDER_NAMES.join(', ')}`);

  const crashPoints = values.crash === undefined ? Object.keys(CRASH_POINTS) : values.crash === 'none' ? [] : values.crash.split(',');
  for (const point of crashPoints) {
    if (!(point in CRASH_POINTS)) throw new UsageError(`--crash: unknown point "${point}" (known: ${Object.keys(CRASH_POINTS).join(', ')}, none)`);
  }
  const crashRate = rate('crash-rate', values['crash-rate'], DEFAULT_CHAOS.crashRate);
  const faults: FaultRates = values['no-faults']
    ? NO_FAULTS
    : {
        ...NO_FAULTS,
        ...Object.fromEntries(crashPoints.map((p) => [CRASH_POINTS[p as keyof typeof CRASH_POINTS], crashRate])),
        providerTimeout: rate('provider-timeouts', values['provider-timeouts'], DEFAULT_CHAOS.providerTimeout),
        providerThrottle: rate('provider-throttling', values['provider-throttling'], DEFAULT_CHAOS.providerThrottle),
        providerReject: rate('provider-rejections', values['provider-rejections'], DEFAULT_CHAOS.providerReject),
        dynamoThrottle: rate('dynamodb-throttling', values['dynamodb-throttling'], DEFAULT_CHAOS.dynamoThrottle),
      };
  const duplicateRate = values.duplicates === undefined ? undefined : rate('duplicates', values.duplicates, 0.3);
  const options: SimulationOptions = {
    sender: sender as SenderName,
    faults,
    ...defined('events', int('events', values.events, 1, 1_000_000)),
    ...defined('duplicateRate', duplicateRate),
    ...defined('rate', int('rate', values.rate, 1, 100_000)),
    ...defined('seed', int('seed', values.seed, 0, 2 ** 32 - 1)),
    ...defined('concurrency', int('concurrency', values.concurrency, 1, 256)),
    ...defined('batchSize', int('batch-size', values['batch-size'], 1, 10)),
    ...defined('sendsPerInvocation', int('sends-per-invocation', values['sends-per-invocation'], 1, 256)),
    ...defined('maxReceiveCount', int('max-receive-count', values['max-receive-count'], 1, 1000)),
    ...defined('outboxFile', values.outbox),
  };
  if (!values.wire && (values['ledger-outage'] !== undefined || values['ledger-outage-every'] !== undefined)) {
    throw new UsageError('--ledger-outage and --ledger-outage-every need --wire (outages are injected on the wire)');
  }
  if (values['ledger-outage-every'] !== undefined && values['ledger-outage'] === undefined) {
    throw new UsageError('--ledger-outage-every needs --ledger-outage <seconds>');
  }
  if (!values.wire && values['urgent-concurrency'] !== undefined) throw new UsageError('--urgent-concurrency needs --wire (the port-level run has no lanes)');
  if (values.recipients !== undefined && !values.consent) throw new UsageError('--recipients needs --consent');
  if (values.consent) {
    if (values.wire || values.attack) throw new UsageError('--consent cannot be combined with --wire or --attack');
    const consent: ConsentSimulationOptions = { ...defined('seed', options.seed), ...defined('recipients', int('recipients', values.recipients, 1, 5_000)) };
    return { help: values.help, json: values.json, options, consent };
  }
  if (values.attack) {
    if (values.wire) throw new UsageError('--attack and --wire cannot be combined');
    return { help: values.help, json: values.json, options, attack: { ...defined('seed', options.seed) } };
  }
  if (values.wire) {
    const wireRate = values['no-faults'] ? 0 : rate('wire-faults', values['wire-faults'], 0.01);
    const outageSeconds = int('ledger-outage', values['ledger-outage'], 0, 3600);
    const wire: WireSimulationOptions = {
      faults: wireFaults(wireRate),
      ...defined(
        'ledgerOutage',
        outageSeconds === undefined ? undefined : { seconds: outageSeconds, everySeconds: int('ledger-outage-every', values['ledger-outage-every'], 1, 86_400) ?? 30 },
      ),
      ...defined('events', options.events),
      ...defined('duplicateRate', options.duplicateRate),
      ...defined('seed', options.seed),
      ...defined('concurrency', options.concurrency),
      ...defined('urgentConcurrency', int('urgent-concurrency', values['urgent-concurrency'], 2, 1000)),
      ...defined('batchSize', options.batchSize),
      ...defined('sendsPerInvocation', options.sendsPerInvocation),
      ...defined('maxReceiveCount', options.maxReceiveCount),
      ...defined('smsProvider', smsProviderOf(values['sms-provider'])),
    };
    return { help: values.help, json: values.json, options, wire };
  }
  return { help: values.help, json: values.json, options };
}

function smsProviderOf(raw: string | undefined): 'sns' | 'end-user-messaging' | undefined {
  if (raw === undefined || raw === 'sns' || raw === 'end-user-messaging') return raw;
  throw new UsageError(`--sms-provider must be sns or end-user-messaging (got "${raw}")`);
}

function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
