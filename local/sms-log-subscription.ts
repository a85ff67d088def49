import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createConsentStore, createLedger, createLedgerTableClient } from '../functions/adapters/ledger-clients';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import { createStatusHandler, type StatusHandler } from '../functions/status/create-status-handler';
import { STATUS_ASYNC_RETRY_ATTEMPTS } from '../lib/notifier-status';
import { asFunction } from './aws/calling-function';
import { ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES, batchesWithinLimit, cloudWatchLogsPayload, invocationPayloadBytes, type LogLine } from './cloudwatch-logs-payload';
import { lambdaContext } from './lambda-event-source';

/** The status function's timeout in the stack. */
const STATUS_TIMEOUT_MS = 30_000;

/** What the subscription delivered. */
export interface SmsLogSubscriptionCounts {
  /** Lines in an invocation the status function completed. */
  readonly handedOver: number;
  /** Batches sent to the failure destination: failed on every try Lambda gives them. */
  readonly failedBatches: number;
  /**
   * Batches Lambda refused at the call, over its payload limit (one line too large for a payload of its own): no
   * invocation ran, so in AWS they never reach the failure destination; CloudWatch Logs answers a delivery error it
   * cannot retry by disabling the subscription filter for up to 10 minutes, "During this disabled period, logs are
   * skipped" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Subscriptions.html). Counted and warned of here.
   */
  readonly refusedTooLarge: number;
}

/** Where the status function of the log path writes, and what it counts and logs. */
export interface SmsLogSubscriptionConfig {
  readonly tableName: string;
  readonly metrics: MetricsRecorder;
  /** The status function's log; the subscription warns here of each batch sent to the failure destination. */
  readonly log: LogPort;
  /** The ledger's client. @default the status Lambda's, from the environment (AWS_ENDPOINT_URL_DYNAMODB) at the first hand-over */
  readonly client?: DynamoDBClient;
  /** How often, once started, the lines logged so far are handed over (CloudWatch Logs batches them). @default 500 */
  readonly handOverEveryMs?: number;
}

/** One asynchronous invocation's event, and how many times Lambda has run it. */
interface Batch {
  readonly lines: readonly LogLine[];
  readonly invocations: number;
}

/**
 * The CloudWatch Logs subscription from SNS's SMS delivery-status log group to the real status function, as local
 * runs have it (`npm start`, `simulate --wire`). Lines are cut into batches whose payload Lambda accepts
 * ({@link ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES}) and each batch is an asynchronous invocation: one that fails is run
 * again at the next hand-over, {@link STATUS_ASYNC_RETRY_ATTEMPTS} more times as the stack configures Lambda (Lambda
 * executes a failed asynchronous invocation "up to two more times",
 * https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html), then goes to the failure destination: counted and
 * warned of, never dropped unsaid. A failure never stops later hand-overs.
 */
export class SmsLogSubscription {
  private readonly logged: LogLine[] = [];
  private readonly retrying: Batch[] = [];
  private readonly tally = { handedOver: 0, failedBatches: 0, refusedTooLarge: 0 };
  private handler: StatusHandler | undefined;
  private running: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly config: SmsLogSubscriptionConfig) {}

  get counts(): SmsLogSubscriptionCounts {
    return { ...this.tally };
  }

  /** A line SNS wrote to the log group (the local SNS's `deliveryLogs`). */
  readonly log = (message: string, timestamp: number): void => {
    this.logged.push({ message, timestamp });
  };

  /** Hands the lines over every `handOverEveryMs` until {@link stop}. */
  start(): void {
    this.timer ??= setInterval(() => void this.handOver(), this.config.handOverEveryMs ?? 500);
    this.timer.unref();
  }

  /** Invokes the status function with every batch waiting (new lines, and failed batches with tries left); one hand-over at a time. Never rejects. */
  handOver(): Promise<void> {
    this.running = this.running.then(() => this.invokeWaiting());
    return this.running;
  }

  /** Stops the timer and hands over until nothing waits: each failed batch gets its retries, then the failure destination. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    // Each round runs every waiting batch once more; after 1 + STATUS_ASYNC_RETRY_ATTEMPTS rounds none has tries left.
    for (let round = 0; round <= STATUS_ASYNC_RETRY_ATTEMPTS && (this.logged.length > 0 || this.retrying.length > 0); round += 1) await this.handOver();
  }

  private async invokeWaiting(): Promise<void> {
    const fresh = batchesWithinLimit(this.logged.splice(0)).map((lines): Batch => ({ lines, invocations: 0 }));
    for (const batch of [...this.retrying.splice(0), ...fresh]) await this.invoke(batch);
  }

  private async invoke(batch: Batch): Promise<void> {
    const event = cloudWatchLogsPayload(batch.lines);
    const bytes = invocationPayloadBytes(event);
    // Lambda refuses the invocation itself: nothing runs, nothing is retried, nothing reaches the failure destination.
    if (bytes > ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES) return this.refuseTooLarge(batch, bytes);
    try {
      await this.status()(event, lambdaContext(Date.now() + STATUS_TIMEOUT_MS));
      this.tally.handedOver += batch.lines.length;
    } catch (error) {
      const invocations = batch.invocations + 1;
      if (invocations > STATUS_ASYNC_RETRY_ATTEMPTS) this.toFailureDestination(batch, { invocations, reason: error instanceof Error ? error.name : 'Error', bytes });
      else this.retrying.push({ lines: batch.lines, invocations });
    }
  }

  private toFailureDestination(batch: Batch, why: { readonly invocations: number; readonly reason: string; readonly bytes: number }): void {
    this.tally.failedBatches += 1;
    // The lines hold phone numbers: only their count is logged.
    this.config.log.warn('SMS delivery-log batch sent to the failure destination', { lines: batch.lines.length, attempts: why.invocations, reason: why.reason, payloadBytes: why.bytes });
  }

  private refuseTooLarge(batch: Batch, bytes: number): void {
    this.tally.refusedTooLarge += 1;
    this.config.log.warn('SMS delivery-log batch refused by Lambda as too large: its lines are skipped', { lines: batch.lines.length, payloadBytes: bytes, limitBytes: ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES });
  }

  /** The status function, built at the first hand-over: a run may set the ledger's endpoint variable after this is made. */
  private status(): StatusHandler {
    if (this.handler) return this.handler;
    const { tableName, metrics, log } = this.config;
    const client = this.config.client ?? createLedgerTableClient();
    // Each hand-over runs as the status function: its AWS requests are told apart from the run's own (test/iam/).
    return (this.handler = asFunction('status', createStatusHandler({ store: createLedger({ tableName }, client), consent: createConsentStore({ tableName }, client), metrics, log, clock: Date.now })));
  }
}
