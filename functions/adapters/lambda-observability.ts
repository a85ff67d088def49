import { createRequire } from 'node:module';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
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

/** How long before Lambda's own timeout an invocation still running is failed, so that its metrics are published. */
export const TIMEOUT_EARLY_MS = 5;

/**
 * Node's own timers, as middy used them: a test that fakes the global clock (test/interleavings advances it whenever
 * every actor waits) must not fire Lambda's deadline. Required, not imported: an ESM import of `node:timers` reads its
 * `promises` getter and loads `timers/promises` into every cold start.
 */
const realTimers = createRequire(import.meta.url)('node:timers') as Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'>;

/**
 * Wraps a handler as Powertools' middy middlewares did, with the calls their docs give for use without middy (which
 * brought Node's web streams into every cold start, issue 50): the Lambda context in every log line, per-dimension
 * counts flushed and EMF published at the end of every invocation, also when it throws, and, as middy's default
 * did, a `TimeoutError` {@link TIMEOUT_EARLY_MS} ms before Lambda would time the invocation out, so that its
 * metrics are published rather than lost with the environment.
 */
export function instrumentHandler<E, R>(
  base: (event: E, context: Context) => Promise<R>,
  hooks: ObservabilityHooks,
): (event: E, context: Context) => Promise<R> {
  return async (event: E, context: Context): Promise<R> => {
    const logger = hooks.powertoolsLogger;
    logger?.refreshSampleRateCalculation();
    logger?.addContext(context);
    logger?.logEventIfEnabled(event);
    let timer: ReturnType<typeof realTimers.setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      if (typeof context.getRemainingTimeInMillis !== 'function') return;
      timer = realTimers.setTimeout(() => reject(timeoutError()), context.getRemainingTimeInMillis() - TIMEOUT_EARLY_MS);
    });
    const run = async (): Promise<R> => {
      try {
        return await base(event, context);
      } finally {
        hooks.flushMetrics?.();
      }
    };
    try {
      return await Promise.race([run(), timedOut]);
    } finally {
      realTimers.clearTimeout(timer);
      hooks.powertoolsMetrics?.publishStoredMetrics();
      logger?.clearBuffer();
    }
  };
}

/** The error middy's default early timeout threw: the invocation fails, as Lambda's timeout would fail it. */
function timeoutError(): Error {
  const error = new Error('[AbortError]: The operation was aborted.');
  error.name = 'TimeoutError';
  return error;
}
