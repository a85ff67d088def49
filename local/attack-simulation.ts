import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { readOutbox, type OutboxLine } from '../functions/adapters/outbox-provider';
import { idempotencyKey } from '../functions/core/event/idempotency-key';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import { scopeCounts } from '../functions/core/policy/message-limits';
import { smsCountryTable } from '../lib/sms-countries';
import { ATTACK_SMS_COUNTRIES, generateAttackWorkload, OUTSIDE_PREFIXES, PREMIUM_BLOCKS, type AttackWorkload } from './attack-workload';
import type { FaultRates } from './fault-plan';
import { startLocalDynamo } from './local-dynamo';
import { scanLedger, thisSender } from './senders/this-sender';
import { runSimulation } from './simulate';
import { textTable } from './text-table';

/** The attack run's faults: crashes at every point, lost responses (provider, ledger, limit store), throttling. */
export const ATTACK_FAULTS: Partial<FaultRates> = {
  crashBeforeClaim: 0.005,
  crashAfterClaim: 0.005,
  crashAfterSend: 0.005,
  crashAfterOutcome: 0.005,
  providerTimeout: 0.02,
  providerThrottle: 0.02,
  dynamoThrottle: 0.01,
};

/** Receives before the DLQ in the attack run (the stack's default is 100). */
export const ATTACK_MAX_RECEIVE_COUNT = 20;

export interface AttackOptions {
  readonly seed?: number;
  /** @default 200 */
  readonly users?: number;
  /** @default 1200 */
  readonly premiumEvents?: number;
  /** @default 1000 */
  readonly outsideEvents?: number;
}

/** One check of the run, judged from the providers' side. */
export interface AttackCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface AttackReport {
  readonly seed: number;
  readonly smsCountries: readonly string[];
  readonly injected: number;
  readonly events: number;
  readonly wallMs: number;
  readonly legitimate: {
    readonly users: number;
    readonly taps: number;
    readonly limit: number;
    /** By taps: users, and the distinct messages the provider got per user (min..max). */
    readonly byTaps: readonly { readonly taps: number; readonly users: number; readonly expected: number; readonly min: number; readonly max: number }[];
  };
  readonly attack: {
    readonly premiumEvents: number;
    readonly blockLimit: number;
    readonly perBlock: readonly { readonly block: string; readonly sends: number }[];
    readonly outsideEvents: number;
    readonly outsideSends: number;
  };
  /** Provider calls beyond the first per message: otp's resends after an unknown outcome (the same message, counted once). */
  readonly resendsOfOneMessage: number;
  readonly finalStates: Readonly<Record<string, number>>;
  readonly suppressedByReason: Readonly<Record<string, number>>;
  readonly faultsInjected: Readonly<Record<string, number>>;
  readonly checks: readonly AttackCheck[];
  readonly ok: boolean;
}

/**
 * `notifier simulate --attack`: an SMS-pumping attack and 200 legitimate users behind one queue, every
 * event delivered 1 to 3 times with crashes and lost responses, through the real sender and reclaimer
 * on dynalite with the built-in otp limits and an SMS country list. Judged from the outbox (what reached
 * the provider), not from the ledger; the ledger is read only for "nothing lost" and the counters.
 */
export async function runAttackSimulation(options: AttackOptions = {}): Promise<AttackReport> {
  const seed = options.seed ?? 1;
  // Fixed windows are aligned on the epoch: the run's clock starts 1 s into an hour (so into a 10-minute
  // window too), as every run of a few minutes then lies in one window of each limit and the expected
  // figures are exact. Sender, reclaimer and events share this clock; only durations use real time.
  const offsetMs = 3_600_000 - (Date.now() % 3_600_000) + 1_000;
  const clock = () => Date.now() + offsetMs;
  const workload = generateAttackWorkload({ seed, now: clock(), users: options.users, premiumEvents: options.premiumEvents, outsideEvents: options.outsideEvents });
  const countries = [...ATTACK_SMS_COUNTRIES];
  const tableName = `ledger-attack-${seed}`;
  const outboxFile = join(mkdtempSync(join(tmpdir(), 'notifier-attack-')), 'outbox.jsonl');
  const dynamo = await startLocalDynamo();
  try {
    const started = Date.now();
    const simulation = await runSimulation({
      seed,
      dynamo,
      outboxFile,
      workload,
      events: workload.items.length,
      faults: ATTACK_FAULTS,
      concurrency: 16,
      rate: 2_000,
      // Every fault kind fires once per message and call site, and a limited SMS has three counter
      // writes besides its ledger writes: up to a dozen failed receives before it settles. The stack's
      // default is 100; 5 (the simulator's default, the stack's minimum) would park some in the DLQ.
      maxReceiveCount: ATTACK_MAX_RECEIVE_COUNT,
      senderFactory: (ports) => thisSender(ports, tableName, { clock, destinations: { sms: smsCountryTable(countries) } }),
    });
    const wallMs = Date.now() - started;
    const outbox = await readOutbox(outboxFile);
    const rows = await scanLedger({ adminClient: dynamo.client() }, tableName);
    const counted = await addressCounts(dynamo.client(), tableName, workload, clock());
    return judgeAttack({ seed, countries, workload, outbox, rows, counted, wallMs, faults: simulation.faultsInjected, parked: simulation.total.parkedInDeadLetterQueue });
  } finally {
    await dynamo.stop();
  }
}

/** Per legitimate user: the events its address counter holds (the 24-hour window of the run). */
async function addressCounts(client: Parameters<typeof DynamoDBDocumentClient.from>[0], tableName: string, workload: AttackWorkload, nowMs: number) {
  const doc = DynamoDBDocumentClient.from(client);
  const limits = buildMessageClassRegistry().get('otp')!.limits;
  const counts = new Map<string, number>();
  for (const user of workload.users) {
    const [address] = scopeCounts('otp', limits, { eventId: '-', recipientId: user.recipientId, channel: 'sms', templateId: 'login-code', address: user.phone }, nowMs);
    const item = await doc.send(
      new GetCommand({ TableName: tableName, Key: { [LEDGER_TABLE.partitionKey]: address!.partition, [LEDGER_TABLE.sortKey]: address!.sort }, ConsistentRead: true }),
    );
    const longest = address!.windows[address!.windows.length - 1]!.attribute;
    counts.set(user.recipientId, (item.Item?.[longest] as Set<unknown> | undefined)?.size ?? 0);
  }
  return counts;
}

export interface JudgeInput {
  readonly seed: number;
  readonly countries: readonly string[];
  readonly workload: AttackWorkload;
  readonly outbox: readonly OutboxLine[];
  readonly rows: ReadonlyMap<string, { readonly state: string; readonly suppressionReason?: string; readonly failureReason?: string }>;
  readonly counted: ReadonlyMap<string, number>;
  readonly wallMs: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly parked: number;
}

/** The checks, from what the provider got (`outbox`), the rows and the counters. Pure. */
export function judgeAttack(input: JudgeInput): AttackReport {
  const { workload, outbox, rows } = input;
  const otp = buildMessageClassRegistry().get('otp')!.limits;
  const limit = Math.min(...otp.filter((l) => l.scope !== 'number-block').map((l) => l.max));
  const blockLimit = Math.min(...otp.filter((l) => l.scope === 'number-block').map((l) => l.max));

  // What the provider got: distinct messages per destination, and calls beyond the first per message.
  const callsPerKey = new Map<string, number>();
  const keysTo = new Map<string, Set<string>>();
  for (const line of outbox) {
    callsPerKey.set(line.key, (callsPerKey.get(line.key) ?? 0) + 1);
    const keys = keysTo.get(line.message.to) ?? new Set<string>();
    keys.add(line.key);
    keysTo.set(line.message.to, keys);
  }
  const distinctTo = (match: (to: string) => boolean) => [...keysTo.entries()].filter(([to]) => match(to)).reduce((n, [, keys]) => n + keys.size, 0);
  const resendsOfOneMessage = [...callsPerKey.values()].reduce((n, calls) => n + calls - 1, 0);

  const byTapsMap = new Map<number, { users: number; min: number; max: number }>();
  let usersOff = 0;
  let countedTwice = 0;
  for (const user of workload.users) {
    const sent = keysTo.get(user.phone)?.size ?? 0;
    const expected = Math.min(user.taps, limit);
    if (sent !== expected) usersOff += 1;
    // Each counted event is a code the provider got (a code counted but never sent would show here too).
    countedTwice += Math.max(0, (input.counted.get(user.recipientId) ?? 0) - sent);
    const entry = byTapsMap.get(user.taps) ?? { users: 0, min: Infinity, max: -Infinity };
    byTapsMap.set(user.taps, { users: entry.users + 1, min: Math.min(entry.min, sent), max: Math.max(entry.max, sent) });
  }
  const byTaps = [...byTapsMap.entries()].sort((a, b) => a[0] - b[0]).map(([taps, e]) => ({ taps, expected: Math.min(taps, limit), ...e }));
  const perBlock = PREMIUM_BLOCKS.map((block) => ({ block, sends: distinctTo((to) => to.startsWith(block) && to.length === block.length + 3) }));
  const outsideSends = distinctTo((to) => OUTSIDE_PREFIXES.some(([prefix]) => to.startsWith(prefix)));

  // Nothing lost: every message of every event ends in a terminal state, SENT only if the provider got it.
  const finalStates: Record<string, number> = {};
  const suppressedByReason: Record<string, number> = {};
  let lost = 0;
  for (const event of workload.events) {
    const recipient = event.recipients[0]!;
    const key = idempotencyKey({ eventId: event.eventId, recipientId: recipient.recipientId, channel: 'sms', templateId: event.templateId });
    const row = rows.get(key);
    const state = row?.state ?? 'missing';
    finalStates[state] = (finalStates[state] ?? 0) + 1;
    if (state === 'SUPPRESSED') suppressedByReason[row?.suppressionReason ?? '-'] = (suppressedByReason[row?.suppressionReason ?? '-'] ?? 0) + 1;
    const terminal = state === 'SENT' ? callsPerKey.has(key) : state === 'FAILED' || state === 'UNKNOWN' || (state === 'SUPPRESSED' && row?.suppressionReason !== undefined);
    if (!terminal) lost += 1;
    // A suppressed message never reached the provider.
    if (state === 'SUPPRESSED' && callsPerKey.has(key)) lost += 1;
  }
  const premiumEvents = [...workload.attackNumbers.keys()].filter((id) => id.includes('-premium-')).length;
  const outsideEvents = workload.attackNumbers.size - premiumEvents;
  const checks: AttackCheck[] = [
    { name: `sends per legitimate user = min(taps, ${limit})`, ok: usersOff === 0, detail: `${usersOff} of ${workload.users.length} users off` },
    {
      name: `sends to each premium block <= ${blockLimit}`,
      ok: perBlock.every((b) => b.sends <= blockLimit),
      detail: perBlock.map((b) => b.sends).join(', '),
    },
    { name: 'sends outside the country list = 0', ok: outsideSends === 0, detail: String(outsideSends) },
    { name: 'messages counted twice = 0', ok: countedTwice === 0, detail: `${countedTwice} (each user's address counter holds exactly the messages the provider got)` },
    { name: 'lost = 0', ok: lost === 0 && input.parked === 0, detail: `${lost} without a terminal state, ${input.parked} parked in the DLQ` },
  ];
  return {
    seed: input.seed,
    smsCountries: input.countries,
    injected: workload.items.length,
    events: workload.events.length,
    wallMs: input.wallMs,
    legitimate: { users: workload.users.length, taps: workload.users.reduce((n, u) => n + u.taps, 0), limit, byTaps },
    attack: { premiumEvents, blockLimit, perBlock, outsideEvents, outsideSends },
    resendsOfOneMessage,
    finalStates,
    suppressedByReason,
    faultsInjected: input.faults,
    checks,
    ok: checks.every((c) => c.ok),
  };
}

/** The report as text. */
export function formatAttackReport(r: AttackReport): string {
  const lines = [
    `SMS-pumping attack, seed ${r.seed}: ${r.events} OTP events injected ${r.injected} times (1-3 each), SMS countries ${r.smsCountries.join(', ')}, ${Math.round(r.wallMs / 1000)} s`,
    `faults injected: ${Object.entries(r.faultsInjected).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    '',
    `Legitimate users (${r.legitimate.users}, ${r.legitimate.taps} taps of "resend code"), distinct codes the provider got per user:`,
    textTable(
      ['taps', 'users', 'expected each', 'got (min..max)'],
      r.legitimate.byTaps.map((b) => [b.taps, b.users, b.expected, b.min === b.max ? String(b.min) : `${b.min}..${b.max}`]),
    ),
    '',
    `Attack: ${r.attack.premiumEvents} codes to ${r.attack.perBlock.length} premium blocks, ${r.attack.outsideEvents} to numbers outside the list`,
    textTable(
      ['destination', 'sends'],
      [...r.attack.perBlock.map((b) => [`block ${b.block}xxx (limit ${r.attack.blockLimit})`, b.sends] as [string, number]), ['outside the country list', r.attack.outsideSends]],
    ),
    '',
    `final states: ${Object.entries(r.finalStates).map(([s, n]) => `${s} ${n}`).join(', ')}`,
    `suppressed by reason: ${Object.entries(r.suppressedByReason).map(([s, n]) => `${s} ${n}`).join(', ')}`,
    `provider calls repeating a message (otp resends after an unknown outcome; one message, one count): ${r.resendsOfOneMessage}`,
    '',
    ...r.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`),
    r.ok ? 'ATTACK CONTAINED: every check holds.' : 'CHECKS FAILED.',
  ];
  return lines.join('\n');
}
