import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { OutboxProvider } from '../adapters/outbox-provider';
import { createSendClients, type SendClients } from '../adapters/send-clients';
import { readSesAccount } from '../adapters/ses-account';
import { SesEmailProvider } from '../adapters/ses-email-provider';
import type { SnsSettings } from '../adapters/sns-provider';
import { onFirstUse } from '../adapters/sqs-on-demand';
import type { DeliveryProvider, DeliveryProviders } from '../core/provider/delivery-provider';
import type { Channel } from '../core/event/idempotency-key';
import type { LogPort } from '../core/observability/log-port';
import { BULK_LANE_YIELD, ratePerProcess, realPaceClock, SendRateGovernor, type ChannelRates } from '../core/policy/send-rate-governor';
import { ConfigurationError } from '../core/errors';
import type { SenderConfig, SmsProviderSettings } from '../core/sender-config';

// The sending edge, built from validated configuration: SES and SNS providers, their clients, and the
// send-rate governor (which reads the SES account). The reclaimer reaches this module only through
// import(), on its first send (on-demand-sending.ts).

export function createProviders(
  config: Pick<SenderConfig, 'delivery' | 'sendTimeoutMs' | 'messageClasses'> & Partial<Pick<SenderConfig, 'topicPrefix'>>,
  clients: SendClients = createSendClients(config.sendTimeoutMs),
): DeliveryProviders {
  const delivery = config.delivery;
  if (delivery.mode === 'outbox') {
    const outbox = new OutboxProvider(delivery.outboxFile);
    return { email: outbox, sms: outbox, push: outbox };
  }
  const sns = snsProvider(clients, config.sendTimeoutMs, {
    smsSenderId: delivery.smsSenderId,
    smsOriginationNumber: delivery.smsOriginationNumber,
  });
  return {
    email: new SesEmailProvider(clients.ses, {
      fromAddress: delivery.emailFrom,
      configurationSetName: delivery.sesConfigurationSet,
      tenantName: delivery.sesTenantName,
      bulk: delivery.sesBulkRoute,
      contactListName: delivery.contactListName,
      topicPrefix: config.topicPrefix ?? '',
    }),
    sms: delivery.sms.provider === 'end-user-messaging' ? eumProvider(delivery.sms, clients, config) : sns,
    push: sns,
  };
}

/**
 * SNS's provider (texts when SMS goes through it, and push): its module and its client load with the first text
 * or push, not at cold start. A stack that never pushes and texts through End User Messaging never loads them.
 */
function snsProvider(clients: SendClients, sendTimeoutMs: number, settings: SnsSettings): DeliveryProvider {
  const loaded = onFirstUse(async () => {
    const [{ SnsProvider }, client] = await Promise.all([
      import('../adapters/sns-provider'),
      clients.sns ?? import('../adapters/sns-client').then(({ newSnsClient }) => newSnsClient(sendTimeoutMs)),
    ]);
    return new SnsProvider(client, settings);
  });
  return {
    send: async (request, signal) => (await loaded()).send(request, signal),
    optedOut: async (address, signal) => (await loaded()).optedOut(address, signal),
  };
}

/** The stack's SMS provider, embedded at synth (lib/destination-options.ts, SHIPPED_SMS_PROVIDER_IDENTIFIER); undefined unbundled. */
declare const __NOTIFIER_SMS_PROVIDER__: string | undefined;

/**
 * End User Messaging's provider, its module and client loaded with the provider's first text. Built for SNS (the
 * define folds the test to true), a bundle ends at the throw, so esbuild drops the imports and the modules with them.
 */
function eumProvider(
  settings: Extract<SmsProviderSettings, { provider: 'end-user-messaging' }>,
  clients: SendClients,
  config: Pick<SenderConfig, 'sendTimeoutMs' | 'messageClasses'>,
): DeliveryProvider {
  if (typeof __NOTIFIER_SMS_PROVIDER__ !== 'undefined' && __NOTIFIER_SMS_PROVIDER__ !== 'end-user-messaging') {
    throw new ConfigurationError('SMS_PROVIDER=end-user-messaging in a bundle built for SNS');
  } else {
    const loaded = onFirstUse(async () => {
      const [{ eumSmsProvider }, client] = await Promise.all([
        import('../adapters/eum-sms-provider'),
        clients.eum ?? import('../adapters/eum-client').then(({ newEumClient }) => newEumClient(config.sendTimeoutMs)),
      ]);
      return eumSmsProvider(client, {
        configurationSetName: settings.configurationSet,
        originationIdentity: settings.originationIdentity,
        maxPrice: settings.maxPrice,
        protectConfigurationId: settings.protectConfigurationId,
        timeToLiveSeconds: (messageClass) => config.messageClasses.get(messageClass)?.smsTimeToLiveSeconds,
      });
    });
    // Known without loading it: what eumSmsProvider's provider says of itself.
    return { keyedEvidence: true, timeToLive: true, send: async (request, signal) => (await loaded()).send(request, signal) };
  }
}

/** The SDK clients that send, in `aws` delivery mode. */
export function createLambdaSendClients(config: Pick<SenderConfig, 'delivery' | 'sendTimeoutMs'>): SendClients | undefined {
  return config.delivery.mode === 'aws' ? createSendClients(config.sendTimeoutMs) : undefined;
}

/**
 * The send-rate governor of this process, from the configured account-wide rates; the e-mail rate,
 * when not configured, is SES's own `MaxSendRate`. Logs the SES account's state once, at cold start:
 * a sandboxed or paused account explains every refusal that follows.
 */
export async function createSendRateGovernor(
  config: Pick<SenderConfig, 'delivery' | 'sendRates' | 'sendRateShares' | 'sendRateAccountShare' | 'yieldsToThrottling' | 'lane'>,
  ses: SESv2Client | undefined,
  log: LogPort,
): Promise<SendRateGovernor | undefined> {
  const rates: Partial<Record<Channel, number>> = { ...config.sendRates };
  if (config.delivery.mode === 'aws' && ses) {
    try {
      const account = await readSesAccount(ses);
      const logAccount = account.sendingEnabled === false ? log.error : log.info;
      logAccount('SES account at cold start', { ...account, configuredEmailRate: config.sendRates.email ?? null });
      if (rates.email === undefined && account.maxSendRate) rates.email = account.maxSendRate;
    } catch (error) {
      log.warn('Could not read the SES account (ses:GetAccount); e-mail is paced only if SEND_RATE_EMAIL_PER_SECOND is set', {
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
    }
  }
  if (Object.keys(rates).length > 0) {
    log.info('Send rates of this process', {
      lane: config.lane ?? null,
      accountRates: rates,
      laneShareOfAccount: config.sendRateAccountShare,
      shares: config.sendRateShares,
      perProcess: ratePerProcess(rates, config.sendRateShares, config.sendRateAccountShare),
      yieldsToThrottling: config.yieldsToThrottling,
    });
  }
  return governorFor(rates, config);
}

/** How a process paces: its lane's share of the account rates, split between `sendRateShares` processes. */
export type ProcessPace = Pick<SenderConfig, 'sendRateShares' | 'sendRateAccountShare' | 'yieldsToThrottling'>;

/** A governor at this process's share of the account rates, or none when no channel is paced. */
export function governorFor(accountRates: ChannelRates, pace: ProcessPace): SendRateGovernor | undefined {
  if (Object.keys(accountRates).length === 0) return undefined;
  const perProcess = ratePerProcess(accountRates, pace.sendRateShares, pace.sendRateAccountShare);
  return new SendRateGovernor(perProcess, realPaceClock, pace.yieldsToThrottling ? BULK_LANE_YIELD : undefined);
}
