import { createLambdaObservability } from '../adapters/lambda-observability';
import { systemClock } from '../core/clock';
import { SERVICE } from '../core/observability/metric-names';
import { createConsentStore, createLedger, createLedgerTableClient } from '../adapters/ledger-clients';
import { createStatusHandler } from './create-status-handler';
import { loadStatusConfig } from './status-config';

// Cold start: only the ledger table is needed.
const config = loadStatusConfig(process.env);
const observability = createLambdaObservability(SERVICE.status);
const table = createLedgerTableClient();

/**
 * The status Lambda: SES configuration-set events (through SNS or EventBridge) and SNS SMS
 * delivery-status logs (through a CloudWatch Logs subscription filter) onto their ledger rows.
 */
export const handler = createStatusHandler({
  store: createLedger(config, table),
  consent: createConsentStore(config, table),
  ...observability,
  clock: systemClock,
});
