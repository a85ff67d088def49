import { randomUUID } from 'node:crypto';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { systemClock } from '../core/clock';
import { SERVICE } from '../core/metric-names';
import { loadSenderConfig } from '../core/sender-config';
import { createLedger, createProviders } from '../sender/wire-adapters';
import { createReclaimerHandler } from './create-reclaimer-handler';
import { loadReclaimerLimits } from './reclaimer-config';

// Cold start: the reclaimer reads the sender's own variables (same ledger, classes, timeouts, providers)
// plus its optional limits; an unsafe combination fails here before any row is touched.
const config = loadSenderConfig(process.env);
const limits = loadReclaimerLimits(process.env, config);
const observability = createLambdaObservability(SERVICE.reclaimer);
const ledger = createLedger(config);

/** The reclaimer Lambda: invoked on a schedule (EventBridge), settles stale PENDING rows. */
export const handler = createReclaimerHandler({
  ledger,
  pending: ledger,
  providers: createProviders(config),
  ...observability,
  clock: systemClock,
  newOwnerToken: randomUUID,
  timing: { claimTimeoutMs: config.claimTimeoutMs, retentionMs: config.retentionMs },
  sendTimeoutMs: config.sendTimeoutMs,
  messageClasses: config.messageClasses,
  limits,
});
