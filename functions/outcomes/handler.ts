import { createEventBridgeClient, EventBridgeOutcomeBus } from '../adapters/eventbridge-outcome-bus';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { SERVICE } from '../core/observability/metric-names';
import { laneOfMessageClass } from '../core/policy/send-lanes';
import { createOutcomePublisher } from './create-outcome-publisher';
import { loadOutcomesConfig } from './outcomes-config';

// Cold start: the bus only; the publisher never reads or writes the ledger.
const config = loadOutcomesConfig(process.env);
const observability = createLambdaObservability(SERVICE.outcomes);
const bulkClasses = config.bulkClasses;

/**
 * The outcome publisher: the ledger table's stream (filtered to settled rows by the event source mapping) in,
 * one event per producer-visible state change on the stack's event bus out.
 */
export const handler = createOutcomePublisher({
  bus: new EventBridgeOutcomeBus(createEventBridgeClient(), config.eventBusName),
  ...observability,
  ...(bulkClasses ? { laneOf: (messageClass: string) => laneOfMessageClass(messageClass, bulkClasses) } : {}),
});
