import type { Context, SQSEvent } from 'aws-lambda';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { ConfigurationError } from '../core/errors';
import { SERVICE } from '../core/observability/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { createSenderHandler } from './create-sender-handler';
import { loadShippedTemplates } from './shipped-templates';
import { createLambdaSendClients, createProviders, createSendRateGovernor } from '../delivery/provider-wiring';
import { preloadSnsWhenReachable } from './sns-preload';
import { shippedSmsCountries } from '../delivery/shipped-sms-countries';
import { createDeadLetters, createRecordDeferral } from './queue-wiring';
import { createLambdaDeliveryContext } from '../delivery/lambda-delivery-context';

// Cold start: an unsafe or incomplete configuration fails here, loudly, before any message is touched.
// The templates first: a bad one is a build problem, whatever the environment.
const templates = loadShippedTemplates();
const config = loadSenderConfig(process.env);
const observability = createLambdaObservability(SERVICE.sender);
const deadLetters = createDeadLetters(config);
if (!deadLetters) throw new ConfigurationError('DEAD_LETTER_QUEUE_URL is required for the Lambda sender');
const sendClients = createLambdaSendClients(config);
// SNS loads on first use; where this sender can text through it or push, the load overlaps the GetAccount read below.
preloadSnsWhenReachable(config, shippedSmsCountries());

// Also at cold start: the SES account's state and sending rate (one GetAccount), before the first batch.
const ready = createSendRateGovernor(config, sendClients?.ses, observability.log).then((governor) =>
  createSenderHandler({
    ...createLambdaDeliveryContext(config, observability, { providers: createProviders(config, sendClients), governor }),
    deferral: createRecordDeferral(config),
    backoff: config.backoff,
    longestHoldSeconds: config.longestHoldSeconds,
    redelivery: config.redelivery,
    deadLetters,
    templates,
    maxBodyBytes: config.maxBodyBytes,
    refuseUnknownEventFields: config.refuseUnknownEventFields,
    maxClockSkewMs: config.maxClockSkewMs,
    maxConcurrentSends: config.maxConcurrentSends,
    waitForLedgerBeforeReturning: true,
  }),
);

/** The sender Lambda: SQS event source with ReportBatchItemFailures. */
export const handler = async (event: SQSEvent, context: Context) => (await ready)(event, context);
