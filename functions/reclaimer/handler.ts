import type { Context } from 'aws-lambda';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { SERVICE } from '../core/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { createLambdaDeliveryContext, createLambdaSendClients, createSendRateGovernor } from '../sender/wire-adapters';
import { createReclaimerHandler } from './create-reclaimer-handler';
import { loadReclaimerLimits } from './reclaimer-config';

// Cold start: the reclaimer reads the sender's own variables (same ledger, classes, timeouts, providers,
// send rates: it holds one of the rate shares) plus its optional limits; an unsafe combination fails
// here before any row is touched.
const config = loadSenderConfig(process.env);
const limits = loadReclaimerLimits(process.env, config);
const observability = createLambdaObservability(SERVICE.reclaimer);
const sendClients = createLambdaSendClients(config);

const ready = createSendRateGovernor(config, sendClients?.ses, observability.log).then((governor) => {
  const delivery = createLambdaDeliveryContext(config, observability, sendClients);
  return createReclaimerHandler({ ...delivery, governor, pending: delivery.ledger, limits });
});

/** The reclaimer Lambda: invoked on a schedule (EventBridge), settles stale PENDING rows. */
export const handler = async (event: unknown, context: Context) => (await ready)(event, context);
