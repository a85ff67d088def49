import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { powertoolsLog } from '../adapters/powertools-log';
import { PowertoolsMetricsRecorder } from '../adapters/powertools-metrics';
import { systemClock } from '../core/clock';
import { METRICS_NAMESPACE, SERVICE } from '../core/metric-names';
import { createLedger } from '../sender/wire-adapters';
import { createStatusHandler } from './create-status-handler';
import { loadStatusConfig } from './status-config';

// Cold start: only the ledger table is needed.
const config = loadStatusConfig(process.env);
const logger = new Logger({ serviceName: SERVICE.status });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE.status });
const recorder = new PowertoolsMetricsRecorder(metrics);

/**
 * The status Lambda: SES configuration-set events (through SNS or EventBridge) and SNS SMS
 * delivery-status logs (through a CloudWatch Logs subscription filter) onto their ledger rows.
 */
export const handler = createStatusHandler({
  store: createLedger(config),
  metrics: recorder,
  flushMetrics: () => recorder.flush(),
  log: powertoolsLog(logger),
  powertoolsLogger: logger,
  powertoolsMetrics: metrics,
  clock: systemClock,
});
