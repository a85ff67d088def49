import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import type { RecordDeferral } from '../../functions/core/record-deferral';
import type { SendRateGovernor } from '../../functions/core/send-rate-governor';
import { startLocalSes, type LocalSes, type LocalSesOptions } from '../../local/aws/local-ses';
import { startLocalSns, type LocalSns, type LocalSnsOptions } from '../../local/aws/local-sns-server';
import { startWireFaultProxy, type FaultDecider, type WireFaultProxy } from '../../local/aws/wire-fault-proxy';
import type { WireRequest } from '../../local/aws/wire-operation';
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
  readonly ses: LocalSes;
  readonly sns: LocalSns;
  readonly ledger: DynamoDbLedger;
  /**
   * A sender over this rig; each call builds a fresh one (a new execution environment).
   * `deferral` backs paced records off. @default none
   */
  sender(clock?: ControlledClock, governor?: SendRateGovernor, deferral?: RecordDeferral, options?: Pick<HarnessOptions, 'waitForLedgerBeforeReturning'>): SenderHarness;
  /** Accepted sends for `key` at the local providers. */
  accepted(key: string): number;
  stop(): Promise<void>;
}

/** The local providers' account limits. @default none */
export interface WireRigOptions {
  readonly ses?: LocalSesOptions;
  readonly sns?: LocalSnsOptions;
}

export async function startWireRig(db: TestLedger, options: WireRigOptions = {}): Promise<WireRig> {
  const [ses, sns] = await Promise.all([startLocalSes(options.ses), startLocalSns(options.sns)]);
  const [dynamoProxy, sesProxy, snsProxy] = await Promise.all([
    startWireFaultProxy({ service: 'dynamodb', target: db.endpoint }),
    startWireFaultProxy({ service: 'sesv2', target: ses.endpoint }),
    startWireFaultProxy({ service: 'sns', target: sns.endpoint }),
  ]);
  const dynamo = new DynamoDBClient({ ...ledgerClientConfig(), ...LOOPBACK, endpoint: dynamoProxy.endpoint });
  const ledger = new DynamoDbLedger(dynamo, db.tableName);
  const clients: { destroy(): void }[] = [dynamo];

  return {
    dynamoProxy,
    sesProxy,
    snsProxy,
    ses,
    sns,
    ledger,
    sender(clock, governor, deferral, options = {}) {
      const sesClient = new SESv2Client({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: sesProxy.endpoint });
      const snsClient = new SNSClient({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), ...LOOPBACK, endpoint: snsProxy.endpoint });
      clients.push(sesClient, snsClient);
      const snsProvider = new SnsProvider(snsClient);
      return new SenderHarness({
        ledger,
        clock,
        sendTimeoutMs: WIRE_SEND_TIMEOUT_MS,
        governor,
        deferral,
        ...options,
        providers: { email: new SesEmailProvider(sesClient, { fromAddress: 'orders@shop.test', contactListName: 'notifier-local' }), sms: snsProvider, push: snsProvider },
      });
    },
    accepted(key) {
      return (ses.acceptedPerKey().get(key) ?? 0) + (sns.acceptedPerKey().get(key) ?? 0);
    },
    async stop() {
      for (const client of clients) client.destroy();
      await Promise.all([dynamoProxy.stop(), sesProxy.stop(), snsProxy.stop()]);
      await Promise.all([ses.stop(), sns.stop()]);
    },
  };
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
