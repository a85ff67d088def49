import { randomUUID } from 'node:crypto';
import type { DeadLetterSink } from '../functions/core/queue/dead-letter-sink';
import type { DeliveryProvider, DeliveryProviders } from '../functions/core/provider/delivery-provider';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import type { SenderConfig } from '../functions/core/sender-config';
import { loadTemplateDirectory, repositoryTemplates } from '../functions/adapters/template-directory';
import { createSenderHandler } from '../functions/sender/create-sender-handler';
import { laneDelivery } from '../functions/delivery/lambda-delivery-context';
import { createProviders, governorFor } from '../functions/delivery/provider-wiring';
import { createDeadLetters, createRecordDeferral } from '../functions/sender/queue-wiring';
import type { SmsCountryTable } from '../functions/core/policy/sms-country-table';
import type { SendRateGovernor } from '../functions/core/policy/send-rate-governor';
import { createConsentStore, createLedger, createLedgerTableClient, createLimitStore } from '../functions/adapters/ledger-clients';
import { bindToEnvironment, type ExecutionEnvironment } from './execution-environment';
import type { BatchHandler } from './lambda-event-source';
import { createLocalReclaimer, type LocalReclaimer } from './reclaimer-hook';
import type { SenderUnderTest, SimulationTiming } from './senders/sender-under-test';

/** What the Lambda wiring here takes besides the configuration. */
export interface LambdaWiringOptions {
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** Wraps each channel's provider (the local runner prints every call). @default as built */
  readonly wrapProvider?: (provider: DeliveryProvider) => DeliveryProvider;
  /** Wraps each execution environment's send-rate governor (the wire run watches what it does). @default as built */
  readonly wrapGovernor?: (governor: SendRateGovernor) => Pick<SendRateGovernor, 'acquire' | 'throttled'>;
  /** Folder of template files the sender renders, validated as at a cold start. @default the repository's templates/ */
  readonly templatesDir?: string;
  /** The SMS countries (what the stack embeds in the bundle). @default any country */
  readonly smsCountries?: SmsCountryTable;
}

/** The sender and reclaimer as the Lambdas build them, one handler per execution environment. */
export interface LambdaWiring extends Pick<SenderUnderTest, 'createReclaimer'> {
  createHandler(env: ExecutionEnvironment): BatchHandler;
  readonly timing: SimulationTiming;
}

/**
 * The Lambda sender's wiring (functions/sender/handler.ts) from a loaded SenderConfig: the
 * DynamoDB ledger, the SES/SNS providers and the SQS dead-letter sink from the same
 * `ledger-clients`, `provider-wiring` and `queue-wiring` factories, so their SDK clients find their endpoints, region and credentials
 * in the SDK's standard variables, as in Lambda. Only logs and metrics are the caller's.
 */
export function createLambdaWiring(config: SenderConfig, options: LambdaWiringOptions, visibilityTimeoutMs: number): LambdaWiring {
  // One client for the table's adapters, as the Lambdas build them (lambda-delivery-context.ts).
  const table = createLedgerTableClient();
  const ledger = createLedger(config, table);
  const limitStore = createLimitStore(config, table);
  const consent = createConsentStore(config, table);
  const recipients = { topicPrefix: config.topicPrefix, defaultTimeZone: config.defaultTimeZone };
  const destinations = { ...config.destinations, ...(options.smsCountries ? { sms: options.smsCountries } : {}) };
  const templates = options.templatesDir ? loadTemplateDirectory(options.templatesDir) : repositoryTemplates();
  const built = createProviders(config);
  const wrap = options.wrapProvider ?? ((p: DeliveryProvider) => p);
  // SMS and push share one SnsProvider; wrap each distinct provider once.
  const wrapped = new Map<DeliveryProvider, DeliveryProvider>();
  const once = (p: DeliveryProvider) => wrapped.get(p) ?? wrapped.set(p, wrap(p)).get(p) ?? p;
  const providers: DeliveryProviders = { email: once(built.email), sms: once(built.sms), push: once(built.push) };
  const deadLetters: DeadLetterSink | undefined = createDeadLetters(config);
  if (!deadLetters) throw new Error('DEAD_LETTER_QUEUE_URL is required for the sender');
  const timing: SimulationTiming = {
    functionTimeoutMs: config.functionTimeoutMs,
    claimTimeoutMs: config.claimTimeoutMs,
    sendTimeoutMs: config.sendTimeoutMs,
    visibilityTimeoutMs,
    retentionMs: config.retentionMs,
  };
  const bindProviders = (env: ExecutionEnvironment): DeliveryProviders => ({
    email: bindToEnvironment(providers.email, env),
    sms: bindToEnvironment(providers.sms, env),
    push: bindToEnvironment(providers.push, env),
  });
  return {
    timing,
    createHandler: (env) =>
      createSenderHandler({
        ledger: bindToEnvironment(ledger, env),
        providers: bindProviders(env),
        deadLetters: bindToEnvironment(deadLetters, env),
        metrics: options.metrics,
        log: options.log,
        clock: Date.now,
        newOwnerToken: randomUUID,
        timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
        sendTimeoutMs: config.sendTimeoutMs,
        messageClasses: config.messageClasses,
        templates,
        maxBodyBytes: config.maxBodyBytes,
        maxClockSkewMs: config.maxClockSkewMs,
        maxConcurrentSends: config.maxConcurrentSends,
        // As in Lambda: each environment paces at its share of the configured rates, and backs
        // throttled records off on the queue they came from.
        governor: watched(governorFor(config.sendRates, config), options.wrapGovernor),
        ...laneDelivery(config),
        deferral: createRecordDeferral(config),
        backoff: config.backoff,
        longestHoldSeconds: config.longestHoldSeconds,
        redelivery: config.redelivery,
        waitForLedgerBeforeReturning: true,
        limitStore: bindToEnvironment(limitStore, env),
        destinations,
        consent: bindToEnvironment(consent, env),
        ...recipients,
      }),
    createReclaimer: (env): LocalReclaimer =>
      createLocalReclaimer({
        messageClasses: config.messageClasses,
        ledger: bindToEnvironment(ledger, env),
        pending: bindToEnvironment(ledger, env),
        providers: bindProviders(env),
        metrics: options.metrics,
        log: options.log,
        timing,
        limitStore: bindToEnvironment(limitStore, env),
        destinations,
        consent: bindToEnvironment(consent, env),
        ...recipients,
      }),
  };
}

function watched(
  governor: SendRateGovernor | undefined,
  wrap: LambdaWiringOptions['wrapGovernor'],
): Pick<SendRateGovernor, 'acquire' | 'throttled'> | undefined {
  return governor && wrap ? wrap(governor) : governor;
}
