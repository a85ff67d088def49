import { createLambdaObservability } from '../adapters/lambda-observability';
import { ConfigurationError } from '../core/errors';
import { SERVICE } from '../core/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { BUILT_IN_TEMPLATES } from '../core/templates';
import { createSenderHandler } from './create-sender-handler';
import { createDeadLetters, createLambdaDeliveryContext } from './wire-adapters';

// Cold start: an unsafe or incomplete configuration fails here, loudly, before any message is touched.
const config = loadSenderConfig(process.env);
const observability = createLambdaObservability(SERVICE.sender);
const deadLetters = createDeadLetters(config);
if (!deadLetters) throw new ConfigurationError('DEAD_LETTER_QUEUE_URL is required for the Lambda sender');

/** The sender Lambda: SQS event source with ReportBatchItemFailures. */
export const handler = createSenderHandler({
  ...createLambdaDeliveryContext(config, observability),
  deadLetters,
  templates: BUILT_IN_TEMPLATES,
  maxBodyBytes: config.maxBodyBytes,
  maxClockSkewMs: config.maxClockSkewMs,
  maxConcurrentSends: config.maxConcurrentSends,
});
