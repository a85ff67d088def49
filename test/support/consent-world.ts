import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDbConsentStore } from '../../functions/adapters/dynamodb-consent-store';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { DeliveryProviders } from '../../functions/core/provider/delivery-provider';
import { createStatusHandler, type StatusHandler } from '../../functions/status/create-status-handler';
import { startLocalSes, type LocalSes } from '../../local/aws/local-ses';
import { startLocalSns, type LocalSns } from '../../local/aws/local-sns-server';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { cloudWatchLogsEvent, snsEvent } from '../status/status-fixtures';
import type { ControlledClock } from './controlled-clock';
import type { TestLedger } from './ledger-server';
import { lambdaContext } from './sqs-event';

/** The contact list the local SES holds and the sender names. */
export const CONTACT_LIST = 'notifier-test';

/**
 * The sender's real SES and SNS adapters against the local stand-ins, which keep a contact list and an SMS
 * opt-out list and publish what SES and SNS publish about them (SES events, SMS delivery logs); the real
 * status handler records those on the test ledger when the test says (`deliverEvents`), as an event destination
 * and a log subscription would.
 */
export class ConsentWorld {
  readonly statusMetrics = new InMemoryMetrics();
  private readonly sesEvents: Record<string, unknown>[] = [];
  private readonly smsLogs: { message: string; timestamp: number }[] = [];
  private status!: StatusHandler;
  ses!: LocalSes;
  sns!: LocalSns;
  providers!: DeliveryProviders;
  consent!: DynamoDbConsentStore;

  async start(db: TestLedger, clock: ControlledClock): Promise<this> {
    this.ses = await startLocalSes({ contactListName: CONTACT_LIST, events: (event) => this.sesEvents.push(event) });
    this.sns = await startLocalSns({ deliveryLogs: (message, timestamp) => this.smsLogs.push({ message, timestamp }) });
    const local = { region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 };
    const sns = new SnsProvider(new SNSClient({ ...local, endpoint: this.sns.endpoint }));
    this.providers = {
      email: new SesEmailProvider(new SESv2Client({ ...local, endpoint: this.ses.endpoint }), {
        fromAddress: 'shop@example.com',
        configurationSetName: 'notifier-events',
        contactListName: CONTACT_LIST,
      }),
      sms: sns,
      push: sns,
    };
    this.consent = new DynamoDbConsentStore(db.client, db.tableName);
    this.status = createStatusHandler({ store: db.ledger, consent: this.consent, metrics: this.statusMetrics, log: silentLog, clock: clock.now });
    return this;
  }

  /** Delivers what SES and SNS published since the last call to the status handler. */
  async deliverEvents(): Promise<void> {
    const events = this.sesEvents.splice(0);
    const logs = this.smsLogs.splice(0);
    if (events.length > 0) await this.status(snsEvent(...events), lambdaContext());
    if (logs.length > 0) await this.status(cloudWatchLogsEvent(logs), lambdaContext());
  }

  /** Does what a recipient's mail client does with a one-click `List-Unsubscribe` header (RFC 8058): POST to its URL. */
  async oneClickUnsubscribe(listUnsubscribeHeader: string): Promise<number> {
    const url = /^<(.+)>$/.exec(listUnsubscribeHeader)?.[1];
    if (!url) throw new Error(`not a List-Unsubscribe URL: ${listUnsubscribeHeader}`);
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    return response.status;
  }

  /** The e-mails the local SES delivered to the mailbox (what aws-ses-v2-local stored), with their headers. */
  async mailbox(): Promise<{ messageId: string; destination: { to: string[] }; body: { text?: string; html?: string }; headers?: { name: string; value: string }[] }[]> {
    const store = (await (await fetch(`${this.ses.endpoint}/store`)).json()) as { emails: never[] };
    return store.emails;
  }

  async stop(): Promise<void> {
    await Promise.all([this.ses?.stop(), this.sns?.stop()]);
  }
}
