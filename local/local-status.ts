import { createConsentStore, createLedger } from '../functions/adapters/ledger-clients';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import { asFunction } from './aws/calling-function';
import { createStatusHandler, type StatusHandler } from '../functions/status/create-status-handler';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { lambdaContext } from './lambda-event-source';

/** The status function's timeout in the stack. */
const STATUS_TIMEOUT_MS = 30_000;

/**
 * The status Lambda of a local run for what the local SNS logs (SMS delivery status, as the log subscription would):
 * through the real status handler onto the local ledger, every `intervalMs` and once more when asked (`drain`), in
 * the envelope Lambda gets them in. SES's events take the stack's own path (local/aws/local-ses-events.ts).
 */
export class LocalStatus {
  private readonly handler: StatusHandler;
  private readonly smsLogs: { message: string; timestamp: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(config: { readonly tableName: string }, observability: { readonly metrics: MetricsRecorder; readonly log: LogPort }) {
    // Each hand-over runs as the status function: its AWS requests are told apart from the run's own (test/iam/).
    this.handler = asFunction('status', createStatusHandler({ store: createLedger(config), consent: createConsentStore(config), ...observability, clock: Date.now }));
  }

  /** An SNS SMS delivery-status log line. */
  readonly smsLog = (message: string, timestamp: number): void => {
    this.smsLogs.push({ message, timestamp });
  };

  start(intervalMs = 500): void {
    this.timer = setInterval(() => void this.drain().catch(() => undefined), intervalMs);
  }

  /** Hands everything published so far to the handler; one hand-over at a time. */
  drain(): Promise<void> {
    this.running = this.running.then(async () => {
      const logs = this.smsLogs.splice(0);
      if (logs.length > 0) await this.handler(cloudWatchLogsPayload(logs), lambdaContext(Date.now() + STATUS_TIMEOUT_MS));
    });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.drain();
  }
}

/** An SES event as the SNS record of an event destination's topic carries it. */
export function snsEnvelope(event: Record<string, unknown>) {
  return {
    EventSource: 'aws:sns',
    EventVersion: '1.0',
    EventSubscriptionArn: 'arn:aws:sns:us-east-1:000000000000:ses-events:local',
    Sns: {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: 'arn:aws:sns:us-east-1:000000000000:ses-events',
      Message: JSON.stringify(event),
      Timestamp: new Date().toISOString(),
      SignatureVersion: '1',
      Signature: 'local',
      SigningCertUrl: 'https://sns.invalid/local.pem',
      UnsubscribeUrl: 'https://sns.invalid/unsubscribe',
      MessageAttributes: {},
    },
  };
}

/** SMS delivery-status log lines as a CloudWatch Logs subscription delivers them: base64 of gzip of the payload's JSON. */
export function cloudWatchLogsPayload(logs: readonly { readonly message: string; readonly timestamp: number }[]) {
  const payload = {
    messageType: 'DATA_MESSAGE',
    owner: '000000000000',
    logGroup: 'sns/local/000000000000/DirectPublishToPhoneNumber',
    logStream: 'local',
    subscriptionFilters: ['local'],
    logEvents: logs.map((l, i) => ({ id: String(i), ...l })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64') } };
}
