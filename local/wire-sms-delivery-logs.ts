import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createConsentStore, createLedger, createLedgerTableClient } from '../functions/adapters/ledger-clients';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import { createStatusHandler, type StatusHandler } from '../functions/status/create-status-handler';
import { STATUS_ASYNC_RETRY_ATTEMPTS } from '../lib/notifier-status';
import { asFunction } from './aws/calling-function';
import type { LocalSnsOptions } from './aws/local-sns-server';
import type { WireFaultPlan } from './aws/wire-fault-plan';
import { lambdaContext } from './lambda-event-source';
import { cloudWatchLogsPayload } from './local-status';

/** How late a "late" text's delivery log comes: past the wire stack's 3 s evidence wait and windows. */
const LATE_LOG_MS = 5_000;
/** How often the subscription hands the lines logged so far to the status function (CloudWatch Logs batches them). */
const HAND_OVER_MS = 500;
/** The status function's timeout in the stack. */
const STATUS_TIMEOUT_MS = 30_000;

/** What the SNS delivery-log path carried in a run. */
export interface SmsDeliveryLogCounts {
  /** Lines the local SNS logged (one per accepted text). */
  readonly logged: number;
  /** Lines handed to the status function, and the batches Lambda gave up on after its retries (to the failure destination). */
  readonly handedOver: number;
  readonly failedBatches: number;
}

/**
 * SNS's SMS delivery-status logs in a wire run, on the stack's path: the local SNS logs each accepted text's line (as
 * SNS writes `DirectPublishToPhoneNumber`), the fault plan draws its fate per text (on time, late past the evidence
 * windows, or lost: the same draw, and counts, as End User Messaging's events), and a CloudWatch Logs subscription
 * hands the lines to the real status handler over the run's (proxied) ledger as Lambda's asynchronous invocation does:
 * a batch whose invocation fails is tried {@link STATUS_ASYNC_RETRY_ATTEMPTS} more times, then goes to the failure
 * destination (counted). A line reaches its row only once the sender wrote SNS's message id on it (the status
 * function looks the key up by that id), as on AWS.
 */
export interface WireSmsDeliveryLogs {
  /** The local SNS's option that receives each line. */
  readonly snsOptions: Pick<LocalSnsOptions, 'deliveryLogs'>;
  /** Waits for the late lines, hands every line over once more (a failed batch its retries), and stops. */
  stop(): Promise<void>;
  readonly counts: SmsDeliveryLogCounts;
}

/** Where the status function of the log path writes, and what it counts and logs. */
export interface WireSmsDeliveryLogConfig {
  readonly tableName: string;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** The ledger's client. @default the status Lambda's, from the environment (AWS_ENDPOINT_URL_DYNAMODB) at the first line */
  readonly client?: DynamoDBClient;
}

export function wireSmsDeliveryLogs(plan: WireFaultPlan, faults: { readonly late: number; readonly lost: number }, config: WireSmsDeliveryLogConfig): WireSmsDeliveryLogs {
  const waiting: { readonly message: string; readonly timestamp: number; readonly attempts: number }[] = [];
  const late = new Set<Promise<void>>();
  const counts = { logged: 0, handedOver: 0, failedBatches: 0 };
  let handler: StatusHandler | undefined;
  let running = Promise.resolve();
  // Built at the first line: the run sets the ledger's endpoint variable after this starts, and before any text.
  const status = (): StatusHandler => {
    if (handler) return handler;
    const client = config.client ?? createLedgerTableClient();
    const ledger = { tableName: config.tableName };
    return (handler = asFunction('status', createStatusHandler({ store: createLedger(ledger, client), consent: createConsentStore(ledger, client), metrics: config.metrics, log: config.log, clock: Date.now })));
  };

  const handOver = () => {
    running = running.then(async () => {
      if (waiting.length === 0) return;
      const batch = waiting.splice(0);
      try {
        await status()(cloudWatchLogsPayload(batch), lambdaContext(Date.now() + STATUS_TIMEOUT_MS));
        counts.handedOver += batch.length;
      } catch {
        const again = batch.filter((line) => line.attempts < STATUS_ASYNC_RETRY_ATTEMPTS).map((line) => ({ ...line, attempts: line.attempts + 1 }));
        if (again.length < batch.length) counts.failedBatches += 1;
        waiting.push(...again);
      }
    });
    return running;
  };
  const timer = setInterval(() => void handOver(), HAND_OVER_MS);
  timer.unref();

  return {
    counts,
    snsOptions: {
      deliveryLogs: (message, timestamp, text) => {
        counts.logged += 1;
        const fate = plan.eventFate(text.key, text.messageId, faults, LATE_LOG_MS);
        if (fate === 'drop') return;
        if (fate === 'deliver') return void waiting.push({ message, timestamp, attempts: 0 });
        const held = new Promise<void>((resolve) => setTimeout(resolve, fate.delayMs)).then(() => void waiting.push({ message, timestamp, attempts: 0 }));
        late.add(held);
        void held.finally(() => late.delete(held));
      },
    },
    async stop() {
      while (late.size > 0) await Promise.all([...late]);
      clearInterval(timer);
      // A batch that failed comes back for its retries.
      for (let attempt = 0; attempt <= STATUS_ASYNC_RETRY_ATTEMPTS && waiting.length > 0; attempt += 1) await handOver();
    },
  };
}
