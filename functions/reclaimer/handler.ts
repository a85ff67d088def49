import { createLambdaObservability } from '../adapters/lambda-observability';
import { SERVICE } from '../core/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { createLambdaDeliveryContext } from '../sender/wire-adapters';
import { createReclaimerHandler } from './create-reclaimer-handler';
import { loadReclaimerLimits } from './reclaimer-config';

// Cold start: the reclaimer reads the sender's own variables (same ledger, classes, timeouts, providers)
// plus its optional limits; an unsafe combination fails here before any row is touched.
const config = loadSenderConfig(process.env);
const limits = loadReclaimerLimits(process.env, config);
const observability = createLambdaObservability(SERVICE.reclaimer);
const delivery = createLambdaDeliveryContext(config, observability);

/** The reclaimer Lambda: invoked on a schedule (EventBridge), settles stale PENDING rows. */
export const handler = createReclaimerHandler({ ...delivery, pending: delivery.ledger, limits });
