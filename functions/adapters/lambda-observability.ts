import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { LogPort } from '../core/observability/log-port';
import { metricsNamespaceFrom, type ServiceName } from '../core/observability/metric-names';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import { powertoolsLog } from './powertools-log';
import { PowertoolsMetricsRecorder } from './powertools-metrics';

/** The Powertools hooks a handler factory accepts; all optional so tests can leave them out. */
export interface ObservabilityHooks {
  /** Powertools logger for Lambda context injection. @default none (tests) */
  readonly powertoolsLogger?: Logger;
  /** Powertools metrics to publish at the end of each invocation. @default none (tests) */
  readonly powertoolsMetrics?: Metrics;
  /** Called at the end of each invocation, before metrics are published. @default none */
  readonly flushMetrics?: () => void;
}

/** Logging and metrics for one Lambda, all under the same `service` name. */
export interface LambdaObservability extends Required<ObservabilityHooks> {
  readonly log: LogPort;
  readonly metrics: MetricsRecorder;
}

/**
 * Structured logs and EMF metrics for the Lambda named `service`, in the namespace its stack gives it
 * (`POWERTOOLS_METRICS_NAMESPACE`; `IdempotentNotifier` when run without one).
 */
export function createLambdaObservability(
  service: ServiceName,
  env: Readonly<Record<string, string | undefined>> = process.env,
): LambdaObservability {
  const logger = new Logger({ serviceName: service });
  const metrics = new Metrics({ namespace: metricsNamespaceFrom(env), serviceName: service });
  const recorder = new PowertoolsMetricsRecorder(metrics);
  return {
    log: powertoolsLog(logger),
    metrics: recorder,
    flushMetrics: () => recorder.flush(),
    powertoolsLogger: logger,
    powertoolsMetrics: metrics,
  };
}

/**
 * Wraps a handler with middy: Lambda context in every log line, per-dimension counts flushed
 * and EMF published at the end of every invocation, also when it throws.
 */
export function instrumentHandler<E, R>(
  base: (event: E, context: Context) => Promise<R>,
  hooks: ObservabilityHooks,
): (event: E, context: Context) => Promise<R> {
  const flushed = async (event: E, context: Context): Promise<R> => {
    try {
      return await base(event, context);
    } finally {
      hooks.flushMetrics?.();
    }
  };
  const handler = middy(flushed);
  if (hooks.powertoolsLogger) handler.use(injectLambdaContext(hooks.powertoolsLogger));
  if (hooks.powertoolsMetrics) handler.use(logMetrics(hooks.powertoolsMetrics));
  return handler as unknown as (event: E, context: Context) => Promise<R>;
}
