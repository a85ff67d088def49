import { LOCAL_END_USER_MESSAGING_PROPS, LOCAL_SMS_CONFIGURATION_SET, startLocalSmsEvents } from './aws/local-sms-events';
import { systemClock } from '../functions/core/clock';
import { silentLog } from '../functions/core/observability/log-port';
import { mkdirSync } from 'node:fs';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTE } from '../functions/adapters/sqs-dead-letters';
import { ensureLedgerTable } from '../functions/adapters/ledger-table-setup';
import { keyPrefix } from '../functions/core/event/idempotency-key';
import type { LogPort } from '../functions/core/observability/log-port';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import { METRIC } from '../functions/core/observability/metric-names';
import { SuppressionBoard } from './aws/suppression-board';
import { startLocalAws, type LocalAws } from './aws/local-aws';
import { queueDepth, readAllVisible } from './aws/queue-inspection';
import { applyLocalSdkEnvironment } from './local-lambda';
import { startLocalLanes, type LocalLane } from './local-lanes';
import { resolveLocalStack, type LocalStack } from './local-stack';
import { PrintingProvider } from './printing-provider';
import { LOCAL_TABLE_NAME } from './local-table';
import { SmsLogSubscription } from './sms-log-subscription';
import { startLocalSesEvents, type LocalSesEvents } from './aws/local-ses-events';
import { startLedgerPage, type LedgerPage } from './ledger-page';
import { ReclaimerTimer } from './reclaimer-timer';
import { scanLedger } from './senders/this-sender';
import { bump } from './stats';
import { finalStates, type LocalRunSummary } from './local-run-summary';
import { startRunOutcomeFeed, type RunOutcomeFeed } from './run-outcome-feed';
import { DEFAULT_OUTCOME_FEED_FILE } from './outcome-feed';
import { attachLocalFallbackTrigger, type LocalFallbackTrigger } from './local-fallback-trigger';
import { ENV } from '../functions/core/sender-config';

export { formatLocalSummary, type LocalRunSummary } from './local-run-summary';

/** What `npm start` runs. */
export interface LocalRunOptions {
  /** Raw queue message bodies, in order (one JSON event per line). */
  readonly lines: readonly string[];
  /** Persist the ledger in this folder (LevelDB). @default in memory */
  readonly dataDir?: string;
  /** Ledger table name. @default 'notifier-ledger-local' */
  readonly tableName?: string;
  /** Events injected per second. @default 20 */
  readonly rate?: number;
  /** Concurrent invocations (the event source's maximum concurrency). @default 4 */
  readonly concurrency?: number;
  /** Folder of template files the sender renders (validated as at a cold start). @default the repository's templates/ */
  readonly templatesDir?: string;
  /** Print every structured log line as JSON. @default false (only notable ones, compactly) */
  readonly verbose?: boolean;
  /**
   * Which service sends SMS: with End User Messaging, texts go to the local one, whose page lists them with the
   * events it published (to the stack's SNS -> SQS path, which the real status handler drains into the ledger).
   * @default 'sns'
   */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
  /**
   * Called with the local services and the lanes' senders once they are up, before any event is sent.
   * The services' counts of accepted sends stay readable after the run stops them. @default none
   */
  readonly onStarted?: (aws: LocalAws, lanes: readonly LocalLane[], ledgerPage: LedgerPage, outcomeFeed: RunOutcomeFeed) => void;
  /**
   * Called with the summary while the local services still run (npm start prints it there and
   * may keep the mailbox open until Ctrl-C); they stop when it settles. @default none
   */
  readonly beforeStop?: (summary: LocalRunSummary) => Promise<void>;
  /**
   * Recipients who withdrew consent before the run, on the providers' side only (the stack learns it from
   * them during the run): e-mail addresses unsubscribed from a topic of the local SES's contact list, numbers
   * that replied STOP to the local SNS. `npm start` seeds one of each for the example events. @default none
   */
  readonly withdrawnConsent?: { readonly unsubscribed?: readonly { readonly address: string; readonly topic: string }[]; readonly optedOut?: readonly string[] };
  /**
   * Push endpoints the local SNS answers `EndpointDisabled` for (an app uninstalled, a token expired), as
   * SNS does for an endpoint whose `Enabled` attribute is false. `npm start` seeds one for the example's fallback
   * recipient. @default none
   */
  readonly disabledPushEndpoints?: readonly string[];
  /** Where the outcome feed is written, one event a JSON line (emptied at the start). @default DEFAULT_OUTCOME_FEED_FILE */
  readonly outcomeFeedFile?: string;
  /** @default process.stdout */
  readonly out?: (line: string) => void;
  /** Progress and log lines. @default process.stderr */
  readonly err?: (line: string) => void;
}

/** What `npm start` seeds for examples/order-events.jsonl: one unsubscribed contact, one number that replied STOP. */
export const EXAMPLE_WITHDRAWN_CONSENT = {
  unsubscribed: [{ address: 'member3@example.com', topic: 'marketing' }],
  optedOut: ['+14155550199'],
} as const;

/**
 * What `npm start` seeds for examples/order-events.jsonl: the push endpoint of buyer-60, whose order update names
 * `fallback: ["push", "email"]`: the push is refused (`EndpointDisabled`, certainly undelivered), so the fallback
 * trigger asks for the e-mail, which names the push it replaces.
 */
export const EXAMPLE_DISABLED_PUSH_ENDPOINTS = ['arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-dead-bbbb-cccc-000000000060'] as const;
/** Both of the above, as {@link runLocal} takes them. */
export const EXAMPLE_SEEDS = { withdrawnConsent: EXAMPLE_WITHDRAWN_CONSENT, disabledPushEndpoints: EXAMPLE_DISABLED_PUSH_ENDPOINTS } as const;

/**
 * The stack `npm start` runs: the stack's defaults (both lanes, redrive after 100 receives), the push
 * applications of the example stream's endpoints, SMS on for the countries the example texts (US, GB: a stack
 * without smsCountries texts no one, and grants no sns:Publish to a phone number) and 4 sends in flight.
 * The Lambda's own timeouts are scaled down so that a redelivery takes seconds: claim > function
 * timeout > send timeout, as the sender requires (checked by loadSenderConfig, as at a cold start).
 */
export const LOCAL_STACK: LocalStack = {
  props: {
    emailFrom: 'notifications@mail.shop-notifier.dev',
    pushPlatformApplications: ['arn:aws:sns:eu-west-1:123456789012:app/GCM/shop-app', 'arn:aws:sns:eu-west-1:123456789012:app/APNS/shop-app'],
    smsCountries: ['US', 'GB'],
    smsMonthlySpendLimitUsd: 20,
    maxConcurrentSends: 4,
  },
  scaled: { functionTimeoutSeconds: 6, claimTimeoutSeconds: 7, sendTimeoutMs: 1000, visibilityTimeoutSeconds: 8 },
};

/** {@link LOCAL_STACK} texting through End User Messaging (the local one checks no origination identity; synth requires one). */
export function localStackThroughEndUserMessaging(): LocalStack {
  return {
    ...LOCAL_STACK,
    props: {
      ...LOCAL_STACK.props,
      // The example stream texts the US and the UK; End User Messaging needs SMS stated on, as synth does.
      smsCountries: ['US', 'GB'],
      smsMonthlySpendLimitUsd: 100,
      ...LOCAL_END_USER_MESSAGING_PROPS,
    },
  };
}

/**
 * Runs the real sender (and the real reclaimer on a timer) as Lambda runs them, against local
 * AWS on loopback: the events go to an SQS emulator, a poller invokes the handler as Lambda's
 * event source does, and the handler is wired from the same configuration and adapters as in
 * Lambda (DELIVERY_MODE=aws): DynamoDB on dynalite, e-mail through SES v2, SMS and push through
 * SNS, invalid events to the SQS DLQ. Every provider call is printed readably. No fault
 * injection: this is the product working; `notifier simulate` is the abuse.
 */
export async function runLocal(options: LocalRunOptions): Promise<LocalRunSummary> {
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const tableName = options.tableName ?? LOCAL_TABLE_NAME;
  const suppressions = new SuppressionBoard();
  const stack = resolveLocalStack(options.smsProvider === 'end-user-messaging' ? localStackThroughEndUserMessaging() : LOCAL_STACK);
  let smsLogs: SmsLogSubscription | undefined; // SNS's SMS delivery-status log lines -> the status Lambda, once made
  // SES's events (each e-mail's Send and Delivery, the contact list's) take the stack's path: topic -> queue -> status.
  let sesEvents: LocalSesEvents | undefined;
  const aws = await startLocalAws({
    dynamo: options.dataDir ? { dataDir: options.dataDir } : {},
    ses: { suppressions, contactListName: stack.settings.consent.contactListName, events: (event) => sesEvents?.publish(event), sendingEvents: {} },
    sns: { suppressions, deliveryLogs: (line, at) => smsLogs?.log(line, at), disabledEndpoints: options.disabledPushEndpoints ?? [] },
    sqs: stack.queue,
  });
  const throughEum = options.smsProvider === 'end-user-messaging';
  const smsEvents = throughEum ? await startLocalSmsEvents({ sqs: aws.sqs, tableName, metrics: new InMemoryMetrics(), log: silentLog, clock: systemClock }) : undefined;
  const runLog = options.verbose ? jsonLog(err) : compactLog(err);
  // The outcome feed: every ledger writer below writes through the local stream, which the publisher reads.
  let outcomeFeed: RunOutcomeFeed | undefined;
  try {
    outcomeFeed = await startRunOutcomeFeed({ dynamoEndpoint: aws.dynamo.endpoint, stack, file: options.outcomeFeedFile ?? DEFAULT_OUTCOME_FEED_FILE, log: runLog });
  } catch (error) {
    await smsEvents?.stop();
    await aws.stop();
    throw error;
  }
  const restoreEnvironment = applyLocalSdkEnvironment(aws, {
    ...outcomeFeed.sdkEnvironment,
    ...(smsEvents ? { AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: smsEvents.environment.AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2! } : {}),
  });
  let ledgerPage: LedgerPage | undefined;
  let fallback: LocalFallbackTrigger | undefined;
  try {
    const metrics = new InMemoryMetrics();
    // Records backed off for quiet hours, by SQS message id: the run does not wait hours for them.
    const quietHeld = new Set<string>();
    const log = heldRecords(noteSuppressions(runLog, suppressions), quietHeld);
    smsLogs = new SmsLogSubscription({ tableName, metrics, log });
    sesEvents = await startLocalSesEvents({ sqs: aws.sqs, tableName, metrics, log, clock: systemClock, settled: () => aws.ses.settled() });
    for (const { address, topic } of options.withdrawnConsent?.unsubscribed ?? []) aws.ses.contactList.unsubscribeDirectly(address, topic);
    for (const number of options.withdrawnConsent?.optedOut ?? []) aws.sns.optOuts.reply(number, 'STOP');
    // Each lane's cold start: the variables synth writes for it, the same validation.
    const { lanes, laneOf } = await startLocalLanes(aws, stack, {
      tableName,
      smsConfigurationSetName: smsEvents ? LOCAL_SMS_CONFIGURATION_SET : undefined,
      maximumConcurrency: options.concurrency ?? 4,
      wiring: () => ({
        metrics,
        log,
        wrapProvider: (provider) => new PrintingProvider(provider, out),
        ...(options.templatesDir ? { templatesDir: options.templatesDir } : {}),
      }),
    });
    // Channel fallback: the trigger reads the same stream as the publisher, its requests go to the lanes' queues.
    fallback = attachLocalFallbackTrigger({
      stream: outcomeFeed.stream,
      tableName,
      lanes: lanes.map((lane) => ({ name: lane.name, queueUrl: lane.queue.queueUrl })),
      messageClassesJson: lanes[0]!.environment[ENV.messageClasses],
      ...(stack.settings.lanes.enabled ? { bulkClasses: stack.bulkClasses } : {}),
      metrics,
      log,
    });
    const fallbackConsumer = fallback.consumer;
    const admin = aws.dynamo.client();
    await ensureLedgerTable(admin, tableName);
    ledgerPage = await startLedgerPage(async () => (await scanLedger({ adminClient: admin }, tableName)).values());
    options.onStarted?.(aws, lanes, ledgerPage, outcomeFeed);
    out(`Mailbox: ${aws.ses.mailboxUrl} — open it to see what went out`);
    out(`SMS and push: ${aws.sns.outboxUrl}`);
    if (smsEvents) out(`SMS through End User Messaging, and the events it published: ${smsEvents.eum.outboxUrl}`);
    out(`Ledger: ${ledgerPage.url} — each message's state and reason, as npx notifier ledger show gives them`);
    out(`Outcome feed: ${outcomeFeed.page.url} — the events producers hear back, newest first; also written to ${outcomeFeed.file} (one JSON line per event)`);
    out(
      `ledger table ${tableName} on dynalite (${options.dataDir ? `persisted in ${options.dataDir}` : 'in memory'}); ` +
        `${lanes.map((lane) => `the ${lane.name} lane's queue and DLQ`).join(', ')} on fauxqs; e-mail via local SES v2, SMS and push via local SNS`,
    );
    out('Each line below is one provider call and what the provider did; a message\'s final state is the ledger\'s (the page, the summary).');
    out(`${'provider'.padEnd(9)} ${'chan'.padEnd(5)} ${'recipient'.padEnd(28)} ${'template'.padEnd(14)} ${'class'.padEnd(19)} key`);

    const sqs = aws.sqs.client();
    // The stack gives the reclaimer the urgent lane's environment.
    const reclaimerLane = lanes[0]!;
    const reclaimer = new ReclaimerTimer(reclaimerLane.wiring, reclaimerLane.wiring.timing, reclaimerLane.config.claimTimeoutMs);
    reclaimer.start();
    smsLogs.start();

    let injected = 0;
    let producerDone = false;
    const started = Date.now();
    const progress = setInterval(() => {
      void Promise.all(lanes.map((lane) => queueDepth(sqs, lane.queue.queueUrl))).then(
        (depths) =>
          err(
            `progress: ${injected}/${options.lines.length} injected, ${depths.reduce((sum, d) => sum + d.visible + d.inFlight, 0)} in queue, ` +
              `${metrics.get(METRIC.Sent)} sent, ${Math.round((Date.now() - started) / 1000)} s`,
          ),
        () => undefined,
      );
    }, 1000);
    const produce = async () => {
      const interval = 1000 / (options.rate ?? 20);
      for (const line of options.lines) {
        // The event topic routes each event into its lane by messageClass.
        await sqs.send(new SendMessageCommand({ QueueUrl: laneOf(line).queue.queueUrl, MessageBody: line }));
        injected += 1;
        await new Promise((resolve) => setTimeout(resolve, interval));
      }
      producerDone = true;
    };
    try {
      // Done when every lane's queue is empty, or holds only records deferred for quiet hours (they come back hours later).
      const settled = async () => {
        const depths = await Promise.all(lanes.map((lane) => queueDepth(sqs, lane.queue.queueUrl)));
        const waiting = depths.reduce((sum, depth) => sum + depth.visible + depth.delayed, 0);
        const inFlight = depths.reduce((sum, depth) => sum + depth.inFlight, 0);
        return waiting === 0 && inFlight <= quietHeld.size;
      };
      // The fallback trigger has read every write before the queues are judged empty, and again after: a send that
      // ended between the two reads left a write whose request would land on a queue already judged empty.
      const done = async () => {
        if (!producerDone) return false;
        await fallbackConsumer.drain();
        if (!(await settled())) return false;
        await fallbackConsumer.drain();
        return settled();
      };
      await Promise.all([produce(), ...lanes.map((lane) => lane.source.run(done))]);
    } finally {
      clearInterval(progress);
      for (const lane of lanes) lane.source.stop();
      await reclaimer.stop();
      await smsLogs.stop();
      // Every e-mail's events reach the ledger before the summary reads it, as do the texts'.
      await sesEvents.stop();
      // The texts' events too; End User Messaging answers on until the run stops, as SES and SNS do (beforeStop may text).
      await smsEvents?.settle();
      // Every ledger write is done: the trigger reads the rest (a request now would find no sender), the publisher
      // puts what the stream still holds on the bus.
      await fallbackConsumer.stop();
      await outcomeFeed.settle();
    }

    const states = finalStates((await scanLedger({ adminClient: admin }, tableName)).values());
    const deadLettered = new Map<string, number>();
    const letters = [];
    for (const lane of lanes) letters.push(...(await readAllVisible(sqs, lane.queue.dlqUrl)));
    for (const letter of letters) {
      const reason = letter.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.reason]?.StringValue;
      // The sender moved an invalid event with its reason; without one, SQS's redrive moved it.
      bump(deadLettered, reason ? `invalid event: ${reason}` : 'maxReceiveCount exceeded');
    }
    const eventIds = new Set(options.lines.map(eventIdOf).filter((id): id is string => id !== undefined));
    const summary: LocalRunSummary = {
      events: eventIds.size,
      queueMessages: options.lines.length,
      ...states,
      providerAccepted: metrics.get(METRIC.Sent),
      suppressedDuplicates: metrics.get(METRIC.DuplicateSuppressed),
      retried: lanes.reduce((sum, lane) => sum + lane.source.stats.redeliveries, 0),
      handedBack: metrics.get(METRIC.RecordRetried),
      inFailedInvocations: lanes.flatMap((lane) => lane.source.invocations).filter((i) => i.ending !== 'response').reduce((sum, i) => sum + i.messageIds.length, 0),
      deadLettered: Object.fromEntries(deadLettered),
      outcomeFeed: { events: outcomeFeed.feed.events().length, file: outcomeFeed.file },
      smsDeliveryLogs: smsLogs.counts,
    };
    await options.beforeStop?.(summary);
    return summary;
  } finally {
    sesEvents?.source.stop();
    await smsEvents?.stop();
    await fallback?.consumer.stop().catch(() => undefined);
    restoreEnvironment();
    await ledgerPage?.stop();
    await outcomeFeed.close();
    await aws.stop();
  }
}

function eventIdOf(line: string): string | undefined {
  try {
    const id = (JSON.parse(line) as { eventId?: unknown }).eventId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Notable sender logs, one short line each (the sender never logs addresses or content). */
function compactLog(err: (line: string) => void): LogPort {
  const line = (level: string, message: string, a: Record<string, unknown> = {}) => {
    const key = typeof a.key === 'string' ? a.key : undefined;
    const parts = [a.eventId, a.channel, key ? `key ${keyPrefix(key)}` : undefined, a.reason, a.state]
      .filter((p) => p !== undefined)
      .map(String);
    err(`${level.padEnd(5)} ${message}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`);
  };
  return {
    info: (message, a) => {
      if (/Duplicate suppressed|Took over|Reclaimer run finished/.test(message) && !(message.startsWith('Reclaimer') && a?.found === 0)) line('info', message, a);
    },
    warn: (message, a) => line('warn', message, a),
    error: (message, a) => line('error', message, a),
  };
}

/** Notes the records the sender backs off for quiet hours (its log line names the SQS message and the kind). */
function heldRecords(log: LogPort, held: Set<string>): LogPort {
  return {
    ...log,
    info: (message, a = {}) => {
      if (message.startsWith('Record backed off') && typeof a.sqsMessageId === 'string') {
        if (a.kind === 'quiet-hours') held.add(a.sqsMessageId);
        else held.delete(a.sqsMessageId);
      }
      log.info(message, a);
    },
  };
}

/** A board line from a log line's fields (which never hold an address). */
function boardEntry(a: Record<string, unknown>, reason: string) {
  const text = (name: string) => (typeof a[name] === 'string' ? (a[name] as string) : '-');
  return {
    at: Date.now(),
    eventId: text('eventId'),
    recipientId: text('recipientId'),
    channel: text('channel'),
    templateId: text('templateId'),
    messageClass: text('messageClass'),
    reason,
    key: text('key'),
  };
}

/** Puts every suppression the sender logs on the local pages (its log line has no address, and neither has the board). */
function noteSuppressions(log: LogPort, board: SuppressionBoard): LogPort {
  return {
    ...log,
    info: (message, a = {}) => {
      // A held message is on the pages too: it waits, and says until when.
      if (message.startsWith('Inside quiet hours')) board.note(boardEntry(a, `deferred: quiet hours until ${typeof a.until === 'string' ? a.until : '?'}`));
      log.info(message, a);
    },
    warn: (message, a = {}) => {
      if (message.startsWith('Message refused for consent')) board.note(boardEntry(a, `${typeof a.reason === 'string' ? a.reason : '?'} (the provider took it, did not deliver it)`));
      if (message.startsWith('Message suppressed')) board.note(boardEntry(a, typeof a.reason === 'string' ? a.reason : '-'));
      log.warn(message, a);
    },
  };
}

function jsonLog(err: (line: string) => void): LogPort {
  const emit = (level: string) => (message: string, attributes?: Record<string, unknown>) =>
    err(JSON.stringify({ level, message, ...attributes }));
  return { info: emit('INFO'), warn: emit('WARN'), error: emit('ERROR') };
}
