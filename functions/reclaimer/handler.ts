import type { Context } from 'aws-lambda';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { SERVICE } from '../core/observability/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { onDemandSending } from '../delivery/on-demand-sending';
import { createLambdaDeliveryContext } from '../delivery/lambda-delivery-context';
import { createReclaimerHandler } from './create-reclaimer-handler';
import { loadReclaimerLimits } from './reclaimer-config';

// Cold start: the reclaimer reads the sender's own variables (same ledger, classes, timeouts, providers,
// send rates: it holds one of the rate shares) plus its optional limits; an unsafe combination fails
// here before any row is touched. SES and SNS load on the first resend or look-up: most runs find no
// stale claim.
const config = loadSenderConfig(process.env);
const limits = loadReclaimerLimits(process.env, config);
const observability = createLambdaObservability(SERVICE.reclaimer);
const delivery = createLambdaDeliveryContext(config, observability, onDemandSending(config, observability.log));
const reclaim = createReclaimerHandler({ ...delivery, pending: delivery.ledger, limits });

/** The reclaimer Lambda: invoked on a schedule (EventBridge), settles stale PENDING rows. */
export const handler = (event: unknown, context: Context) => reclaim(event, context);
