import { randomUUID } from 'node:crypto';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDbConsentStore } from '../functions/adapters/dynamodb-consent-store';
import { DynamoDbLedger } from '../functions/adapters/dynamodb-ledger';
import { ensureLedgerTable } from '../functions/adapters/ledger-table-setup';
import { SesEmailProvider } from '../functions/adapters/ses-email-provider';
import { SnsProvider } from '../functions/adapters/sns-provider';
import { repositoryTemplates } from '../functions/adapters/template-directory';
import { consentKeyOf } from '../functions/core/policy/consent';
import { InMemoryDeadLetters } from '../functions/core/queue/dead-letter-sink';
import type { DeliveryProvider, DeliveryProviders } from '../functions/core/provider/delivery-provider';
import { silentLog } from '../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import type { ProviderRequest } from '../functions/core/templates/rendered-message';
import { createSenderHandler } from '../functions/sender/create-sender-handler';
import { createStatusHandler } from '../functions/status/create-status-handler';
import { smsCountryTable } from '../lib/sms-countries';
import { startLocalSes } from './aws/local-ses';
import { startLocalSns } from './aws/local-sns-server';
import { judgeConsentRun, type ConsentReport, type ProviderCall } from './consent-report';
import { generateConsentWorkload, type SimRecipient } from './consent-workload';
import { lambdaContext } from './lambda-event-source';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS, startLocalDynamo } from './local-dynamo';
import { scanLedger } from './senders/this-sender';
import { cloudWatchLogsPayload } from './cloudwatch-logs-payload';
import { snsEnvelope } from './sns-envelope';

export interface ConsentSimulationOptions {
  /** @default 1 */
  readonly seed?: number;
  /** @default 300 */
  readonly recipients?: number;
}

/** The stack's queue settings, as a virtual queue honours them. */
const VISIBILITY_MS = 180_000;
const MAX_RECEIVE_COUNT = 100;
const CONTACT_LIST = 'notifier-sim';

interface QueuedRecord {
  readonly messageId: string;
  readonly body: string;
  visibleAt: number;
  receiveCount: number;
}

/**
 * `notifier simulate --consent`: recipients across time zones, some of whom withdraw consent before or during
 * the run, a marketing campaign (e-mail and text) a day at hours that are night somewhere, and codes and order
 * updates at any hour, through the real sender and the real status function on dynalite, the local SES (with
 * its contact list) and SNS (with its opt-out list), on a virtual clock: a record comes back exactly when the
 * sender's visibility timeout says, so three days run in seconds. Judged from the providers' side.
 */
export async function runConsentSimulation(options: ConsentSimulationOptions = {}): Promise<ConsentReport> {
  const seed = options.seed ?? 1;
  const workload = generateConsentWorkload({ seed, recipients: options.recipients ?? 300 });
  const wallStart = Date.now();
  let now = workload.startMs;
  const clock = () => now;

  const dynamo = await startLocalDynamo();
  const sesEvents: Record<string, unknown>[] = [];
  const smsLogs: { message: string; timestamp: number }[] = [];
  const ses = await startLocalSes({ contactListName: CONTACT_LIST, events: (event) => sesEvents.push(event) });
  const sns = await startLocalSns({ deliveryLogs: (message) => smsLogs.push({ message, timestamp: now }) });
  try {
    const client = dynamo.client();
    const tableName = 'notifier-consent-sim';
    await ensureLedgerTable(client, tableName);
    const ledger = new DynamoDbLedger(client, tableName);
    const consent = new DynamoDbConsentStore(client, tableName);
    const local = { region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 };
    const snsProvider = new SnsProvider(new SNSClient({ ...local, endpoint: sns.endpoint }));
    const calls: ProviderCall[] = [];
    const recorded = (provider: DeliveryProvider): DeliveryProvider => ({
      send: async (request: ProviderRequest, signal: AbortSignal) => {
        const outcome = await provider.send(request, signal);
        calls.push({ at: now, channel: request.message.channel, to: request.message.to, messageClass: request.messageClass, outcome: outcome.kind });
        return outcome;
      },
      ...(provider.optedOut ? { optedOut: provider.optedOut.bind(provider) } : {}),
    });
    const providers: DeliveryProviders = {
      email: recorded(new SesEmailProvider(new SESv2Client({ ...local, endpoint: ses.endpoint }), { fromAddress: 'offers@shop.example', contactListName: CONTACT_LIST })),
      sms: recorded(snsProvider),
      push: recorded(snsProvider),
    };
    const metrics = new InMemoryMetrics();
    const deferredSeconds = new Map<string, number>();
    const sender = createSenderHandler({
      ledger,
      providers,
      deadLetters: new InMemoryDeadLetters(),
      metrics,
      log: silentLog,
      clock,
      realTime: Date.now,
      newOwnerToken: randomUUID,
      timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
      sendTimeoutMs: 5_000,
      messageClasses: buildMessageClassRegistry(),
      templates: repositoryTemplates(),
      maxBodyBytes: 65_536,
      maxClockSkewMs: 300_000,
      maxConcurrentSends: 16,
      deferral: { defer: async (receiptHandle, seconds) => void deferredSeconds.set(receiptHandle, seconds) },
      consent,
      destinations: { sms: smsCountryTable(['US', 'GB']) },
    });
    const statusMetrics = new InMemoryMetrics();
    const status = createStatusHandler({ store: ledger, consent, metrics: statusMetrics, log: silentLog, clock });

    // The consent each recipient withdraws, and when the stack knew of it (as the number of provider calls by then).
    const knownAt = new Map<string, number>();
    const known = (address: string) => knownAt.set(address, calls.length);
    const awaitingBounce = new Set<SimRecipient>();
    for (const r of workload.recipients) {
      if (r.withdrawal === 'unsubscribed-before') {
        ses.contactList.unsubscribeDirectly(r.email, 'marketing');
        awaitingBounce.add(r);
      }
      if (r.withdrawal === 'stop-before') {
        sns.optOuts.reply(r.phone, 'STOP');
        // SNS knows from now on, and the sender asks it before a bulk text.
        known(r.phone);
      }
    }
    const pendingActions = workload.recipients.filter((r) => r.withdrawsAt !== undefined).sort((a, b) => a.withdrawsAt! - b.withdrawsAt!);
    const pendingEvents = [...workload.events];
    const queue: QueuedRecord[] = [];
    let deadLettered = 0;

    const deliverStatus = async () => {
      const events = sesEvents.splice(0);
      const logs = smsLogs.splice(0);
      if (events.length > 0) await status({ Records: events.map(snsEnvelope) }, lambdaContext(Date.now() + 30_000));
      if (logs.length > 0) await status(cloudWatchLogsPayload(logs), lambdaContext(Date.now() + 30_000));
      for (const r of [...awaitingBounce]) {
        if (await consent.read(consentKeyOf({ channel: 'email', to: r.email, subject: '', text: '' })!)) {
          known(r.email);
          awaitingBounce.delete(r);
        }
      }
    };

    const act = async (r: SimRecipient) => {
      if (r.withdrawal === 'stop-during') {
        sns.optOuts.reply(r.phone, 'STOP');
        known(r.phone);
        return;
      }
      // The recipient's mail client does the one-click unsubscribe of the bulk e-mail it got (RFC 8058 POST).
      const url = ses.contactList.linksTo(r.email)[0];
      if (!url) return;
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      await deliverStatus();
      known(r.email);
    };

    for (;;) {
      const next = Math.min(pendingEvents[0]?.at ?? Infinity, pendingActions[0]?.withdrawsAt ?? Infinity, ...queue.map((q) => q.visibleAt));
      if (next === Infinity) break;
      now = Math.max(now, next);
      while (pendingActions[0] && pendingActions[0].withdrawsAt! <= now) await act(pendingActions.shift()!);
      while (pendingEvents[0] && pendingEvents[0].at <= now) {
        queue.push({ messageId: randomUUID(), body: JSON.stringify(pendingEvents.shift()!.event), visibleAt: now, receiveCount: 0 });
      }
      const visible = queue.filter((q) => q.visibleAt <= now);
      for (let i = 0; i < visible.length; i += 10) {
        const batch = visible.slice(i, i + 10).map((q) => ({ record: q, receiptHandle: randomUUID() }));
        for (const { record } of batch) record.receiveCount += 1;
        const response = await sender(
          {
            Records: batch.map(({ record, receiptHandle }) => ({
              messageId: record.messageId,
              receiptHandle,
              body: record.body,
              attributes: { ApproximateReceiveCount: String(record.receiveCount), SentTimestamp: String(workload.startMs), SenderId: 'sim', ApproximateFirstReceiveTimestamp: '0' },
              messageAttributes: {},
              md5OfBody: '',
              eventSource: 'aws:sqs',
              eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notifier-bulk',
              awsRegion: 'us-east-1',
            })),
          },
          lambdaContext(Date.now() + 30_000),
        );
        const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
        for (const { record, receiptHandle } of batch) {
          const at = queue.indexOf(record);
          if (!failed.has(record.messageId)) queue.splice(at, 1);
          else if (record.receiveCount >= MAX_RECEIVE_COUNT) {
            queue.splice(at, 1);
            deadLettered += 1;
          } else record.visibleAt = now + (deferredSeconds.has(receiptHandle) ? deferredSeconds.get(receiptHandle)! * 1000 : VISIBILITY_MS);
        }
        await deliverStatus();
      }
    }

    const rows = await scanLedger({ adminClient: client }, tableName);
    return judgeConsentRun({
      seed,
      workload,
      calls,
      knownAfterCalls: knownAt,
      rows: [...rows.values()],
      senderMetrics: metrics,
      statusMetrics,
      deadLettered,
      virtualMs: now - workload.startMs,
      wallMs: Date.now() - wallStart,
    });
  } finally {
    await Promise.allSettled([ses.stop(), sns.stop(), dynamo.stop()]);
  }
}
