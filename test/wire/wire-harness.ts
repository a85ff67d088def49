import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import { eumSmsProvider } from '../../functions/adapters/eum-sms-provider';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import type { RecordDeferral } from '../../functions/core/queue/record-deferral';
import type { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { startLocalEum, type LocalEum, type LocalEumOptions } from '../../local/aws/local-eum';
import { startLocalSes, type LocalSes, type LocalSesOptions } from '../../local/aws/local-ses';
import { startLocalSns, type LocalSns, type LocalSnsOptions } from '../../local/aws/local-sns-server';
import { startWireFaultProxy, type FaultDecider, type WireFaultProxy } from '../../local/aws/wire-fault-proxy';
import type { WireRequest } from '../../local/aws/wire-operation';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SenderHarness, type HarnessOptions } from '../support/sender-harness';
import type { TestLedger } from '../support/ledger-server';
import type { ControlledClock } from '../support/controlled-clock';

const LOOPBACK = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } } as const;

/** The send timeout of the wire tests: short, so a hung provider call ends quickly. */
export const WIRE_SEND_TIMEOUT_MS = 800;

/**
 * The real sender with the real SDK clients, each talking HTTP through a fault-injecting proxy:
 * DynamoDB (dynalite, or the configured server) with the production ledger client settings, and
 * the local SES v2 and SNS servers, which count accepted sends per key independently of the ledger.
 */
export interface WireRig {
  readonly dynamoProxy: WireFaultProxy;
  readonly sesProxy: WireFaultProxy;
  readonly snsProxy: WireFaultProxy;
  readonly eumProxy: WireFaultProxy;
  readonly ses: LocalSes;
  readonly sns: LocalSns;
  readonly eum: LocalEum;
  readonly ledger: DynamoDbLedger;
  /** The limit counters in the ledger table, through the same proxied client (pass it to `sender` to count limits). */
  readonly limitStore: DynamoDbLimitStore;
  /**
   * A sender over this rig; each call builds a fresh one (a new execution environment).
   * `deferral` backs paced records off. @default none
   */
  sender(clock?: ControlledClock, governor?: SendRateGovernor, deferral?: RecordDeferral, options?: WireSenderOptions): SenderHarness;
  /** Accepted sends for `key` at the local providers. */
  accepted(key: string): number;
  stop(): Promise<void>;
}

/** How a rig's sender differs from the production one. */
export interface WireSenderOptions extends Pick<HarnessOptions, 'waitForLedgerBeforeReturning' | 'limitStore' | 'throttleRetryPausesMs' | 'messageClassesJson'> {
  /** Changes the sender's new SES and SNS clients before it uses them (a test middleware). @default none */
  readonly prepareClients?: (clients: { readonly ses: SESv2Client; readonly sns: SNSClient }) => void;
  /** Which service sends SMS: SNS `Publish`, or End User Messaging `SendTextMessage` (configuration set `notifier-sms`). @default 'sns' */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
}

/** The local providers' account limits. @default none */
export interface WireRigOptions {
  readonly ses?: LocalSesOptions;
  readonly sns?: LocalSnsOptions;
  /** The local End User Messaging SMS: its event destination, opt-outs. @default events kept only */
  readonly eum?: LocalEumOptions;
}

export async function startWireRig(db: TestLedger, options: WireRigOptions = {}): Promise<WireRig> {
  const [ses, sns, eum] = await Promise.all([startLocalSes(options.ses), startLocalSns(options.sns), startLocalEum(options.eum)]);
  const [dynamoProxy, sesProxy, snsProxy, eumProxy] = await Promise.all([
    startWireFaultProxy({ service: 'dynamodb', target: db.endpoint }),
    startWireFaultProxy({ service: 'sesv2', target: ses.endpoint }),
    startWireFaultProxy({ service: 'sns', target: sns.endpoint }),
    startWireFaultProxy({ service: 'sms-voice', target: eum.endpoint }),
  ]);
  const dynamo = new DynamoDBClient({ ...ledgerClientConfig(), ...LOOPBACK, endpoint: dynamoProxy.endpoint });
  const ledger = new DynamoDbLedger(dynamo, db.tableName);
  const limitStore = new DynamoDbLimitStore(dynamo, db.tableName);
  const clients: { destroy(): void }[] = [dynamo];

  return {
    dynamoProxy,
    sesProxy,
    snsProxy,
    eumProxy,
    ses,
    sns,
    eum,
    ledger,
    limitStore,
    sender(clock, governor, deferral, { prepareClients, smsProvider = 'sns', ...options } = {}) {
      const sesClient = new SESv2Client({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: sesProxy.endpoint });
      const snsClient = new SNSClient({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: snsProxy.endpoint });
      clients.push(sesClient, snsClient);
      prepareClients?.({ ses: sesClient, sns: snsClient });
      const snsProvider = new SnsProvider(snsClient);
      const eumClient = new PinpointSMSVoiceV2Client({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: eumProxy.endpoint });
      clients.push(eumClient);
      const classes = buildMessageClassRegistry();
      const smsProviderOf = {
        sns: snsProvider,
        'end-user-messaging': eumSmsProvider(eumClient, {
          configurationSetName: 'notifier-sms',
          timeToLiveSeconds: (name) => classes.get(name)?.smsTimeToLiveSeconds,
        }),
      };
      return new SenderHarness({
        ledger,
        clock,
        sendTimeoutMs: WIRE_SEND_TIMEOUT_MS,
        governor,
        deferral,
        ...options,
        providers: { email: new SesEmailProvider(sesClient, { fromAddress: 'orders@shop.test', contactListName: 'notifier' }), sms: smsProviderOf[smsProvider], push: snsProvider },
      });
    },
    accepted(key) {
      return (ses.acceptedPerKey().get(key) ?? 0) + (sns.acceptedPerKey().get(key) ?? 0) + (eum.acceptedPerKey().get(key) ?? 0);
    },
    async stop() {
      for (const client of clients) client.destroy();
      await Promise.all([dynamoProxy.stop(), sesProxy.stop(), snsProxy.stop(), eumProxy.stop()]);
      await Promise.all([ses.stop(), sns.stop(), eum.stop()]);
    },
  };
}

/**
 * Starts a rig before the file's tests and stops it after them; each test starts with no provider fault. The
 * returned object stands for the running rig; use it inside tests and hooks only.
 */
export function useWireRig(db: TestLedger): WireRig {
  let current: WireRig | undefined;
  beforeAll(async () => {
    current = await startWireRig(db);
  });
  afterAll(async () => current?.stop());
  beforeEach(() => {
    current?.sesProxy.setDecider(() => undefined);
    current?.snsProxy.setDecider(() => undefined);
  });
  return new Proxy({} as WireRig, {
    get(_target, property) {
      if (!current) throw new Error('The wire rig is not running: use it inside a test or a hook');
      return Reflect.get(current, property) as unknown;
    },
  });
}

/** A decider that applies `fault` to the first `times` requests matching `match`, then none. */
export function faultFirst(match: (request: WireRequest) => boolean, fault: NonNullable<ReturnType<FaultDecider>>, times = 1): FaultDecider {
  let left = times;
  return (request) => {
    if (left > 0 && match(request)) {
      left -= 1;
      return fault;
    }
    return undefined;
  };
}
