import type { ObservabilityHooks } from '../adapters/lambda-observability';
import { createEventBridgeClient, EventBridgeOutcomeBus } from '../adapters/eventbridge-outcome-bus';
import type { LogPort } from '../core/observability/log-port';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import { laneOfMessageClass } from '../core/policy/send-lanes';
import { createOutcomePublisher, type OutcomePublisher, type OutcomePublisherDependencies } from './create-outcome-publisher';
import { loadOutcomesConfig } from './outcomes-config';

/** What the publisher's cold start is given besides its variables. */
export interface OutcomePublisherWiring extends ObservabilityHooks {
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** @default DEFAULT_OUTCOME_RETRY_PAUSES_MS */
  readonly retryPausesMs?: OutcomePublisherDependencies['retryPausesMs'];
}

/**
 * The publisher as its cold start builds it from its variables: the Lambda handler (handler.ts) and the local
 * runs (`npm start`, `simulate --wire`) both start it here, so the local one is the deployed one.
 * The EventBridge client finds its endpoint as the SDK does (AWS_ENDPOINT_URL_EVENTBRIDGE locally).
 * @throws ConfigurationError when a variable is missing or invalid
 */
export function wireOutcomePublisher(env: Readonly<Record<string, string | undefined>>, wiring: OutcomePublisherWiring): OutcomePublisher {
  const config = loadOutcomesConfig(env);
  const bulkClasses = config.bulkClasses;
  return createOutcomePublisher({
    ...wiring,
    bus: new EventBridgeOutcomeBus(createEventBridgeClient(), config.eventBusName),
    ...(bulkClasses ? { laneOf: (messageClass: string) => laneOfMessageClass(messageClass, bulkClasses) } : {}),
  });
}
