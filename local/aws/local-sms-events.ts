import { createLedger } from '../../functions/adapters/ledger-clients';
import type { IdempotentNotifierProps } from '../../lib/notifier-props';
import type { Clock } from '../../functions/core/clock';
import type { LogPort } from '../../functions/core/observability/log-port';
import type { MetricsRecorder } from '../../functions/core/observability/metrics-recorder';
import { createStatusHandler } from '../../functions/status/create-status-handler';
import { asFunction } from './calling-function';
import { lambdaContext } from '../lambda-event-source';
import { startLocalEum, type LocalEum, type LocalEumOptions } from './local-eum';
import type { LocalSqs } from './local-sqs';
import { startSmsEventPath, type SmsEventPath } from './sms-event-path';
import { startWireFaultProxy, type FaultDecider, type WireFaultProxy } from './wire-fault-proxy';

/** The configuration set the local End User Messaging knows, as the stack's sender is told (SMS_CONFIGURATION_SET). */
export const LOCAL_SMS_CONFIGURATION_SET = 'notifier-sms';

/** The props that make a local stack text through the local End User Messaging (it checks no origination identity; synth requires one). */
export const LOCAL_END_USER_MESSAGING_PROPS = {
  smsProvider: 'end-user-messaging',
  smsOriginationIdentities: ['arn:aws:sms-voice:us-east-1:123456789012:phone-number/phone-local'],
} as const satisfies Pick<IdempotentNotifierProps, 'smsProvider' | 'smsOriginationIdentities'>;

/**
 * End User Messaging SMS as a local run has it: the stand-in behind a wire fault proxy, its events on the stack's
 * path (SNS topic -> SQS queue with raw delivery, on the local SNS/SQS emulator), and the real status handler
 * draining that queue into the ledger (`tableName`, through AWS_ENDPOINT_URL_DYNAMODB) every `pollMs`.
 */
export interface LocalSmsEvents {
  readonly eum: LocalEum;
  readonly proxy: WireFaultProxy;
  readonly path: SmsEventPath;
  /** The sender's variables: provider, configuration set, and the SDK endpoint (the proxy). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Stops polling after handing the queue's events, those still in flight included, to the status handler once
   * more. The service keeps answering (a text sent now is accepted, its events stay on the queue) until
   * {@link stop}: a run reads its ledger after this, and may still text (its reclaimer) before it stops.
   */
  settle(): Promise<void>;
  /** Settles (once), then stops the service, its proxy and its event path. */
  stop(): Promise<void>;
}

export interface LocalSmsEventsOptions {
  readonly sqs: LocalSqs;
  readonly tableName: string;
  readonly decide?: FaultDecider;
  readonly eventFate?: LocalEumOptions['eventFate'];
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly clock: Clock;
  /** @default 250 */
  readonly pollMs?: number;
}

export async function startLocalSmsEvents(options: LocalSmsEventsOptions): Promise<LocalSmsEvents> {
  const path = await startSmsEventPath(options.sqs);
  const eum = await startLocalEum({ configurationSets: [LOCAL_SMS_CONFIGURATION_SET], publishEvent: (event) => path.publish(event), eventFate: options.eventFate });
  const proxy = await startWireFaultProxy({ service: 'sms-voice', target: eum.endpoint, decide: options.decide });
  let store: ReturnType<typeof createLedger> | undefined;
  const status = () => {
    // Built at first use: the ledger's endpoint variable is set by the run after this starts.
    store ??= createLedger({ tableName: options.tableName });
    return createStatusHandler({ store, metrics: options.metrics, log: options.log, clock: options.clock });
  };
  let draining = Promise.resolve(0);
  const drain = () => (draining = draining.then(() => path.drain(asFunction('status', (event) => status()(event, lambdaContext(Date.now() + 30_000))))).catch(() => 0));
  const timer = setInterval(() => void drain(), options.pollMs ?? 250);
  let settling: Promise<void> | undefined;
  const settle = () =>
    (settling ??= (async () => {
      clearInterval(timer);
      await eum.settled();
      await drain();
    })());
  return {
    eum,
    proxy,
    path,
    environment: { SMS_PROVIDER: 'end-user-messaging', SMS_CONFIGURATION_SET: LOCAL_SMS_CONFIGURATION_SET, AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: proxy.endpoint },
    settle,
    async stop() {
      await settle();
      await proxy.stop();
      await eum.stop();
      path.stop();
    },
  };
}
