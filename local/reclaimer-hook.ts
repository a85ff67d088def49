import { randomUUID } from 'node:crypto';
import type { ConsentStore } from '../functions/core/policy/consent';
import type { DeliveryProviders } from '../functions/core/provider/delivery-provider';
import type { DestinationPolicy } from '../functions/core/policy/destination-policy';
import type { LimitStore } from '../functions/core/policy/limit-store';
import type { LogPort } from '../functions/core/observability/log-port';
import { buildMessageClassRegistry, type MessageClassRegistry } from '../functions/core/policy/message-class';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import type { SendLedger } from '../functions/core/ledger/send-ledger';
import type { StalePendingSource } from '../functions/core/ledger/stale-pending';
import { createReclaimer, type ReclaimerRunSummary } from '../functions/reclaimer/create-reclaimer';
import { RECLAIMER_SAFETY_MARGIN_MS } from '../functions/reclaimer/reclaimer-config';
import type { SimulationTiming } from './simulation-timing';

/** What the local runner and the simulator need from the reclaimer: one bounded run. */
export interface LocalReclaimer {
  run(): Promise<ReclaimerRunSummary>;
}

/** Everything a local reclaimer run is wired with. */
export interface LocalReclaimerDeps {
  readonly ledger: SendLedger;
  readonly pending: StalePendingSource;
  readonly providers: DeliveryProviders;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly timing: SimulationTiming;
  /** Rows resolved at once. @default 4 */
  readonly concurrency?: number;
  /** The deployment's message classes, as the Lambda reclaimer reads them from MESSAGE_CLASSES. @default the built-in classes */
  readonly messageClasses?: MessageClassRegistry;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Where the classes' limits are counted, as in Lambda. @default none */
  readonly limitStore?: LimitStore;
  /** @default every destination allowed */
  readonly destinations?: DestinationPolicy;
  /** Recipients' consent, read and recorded as in Lambda. @default none */
  readonly consent?: ConsentStore;
  /** @default '' */
  readonly topicPrefix?: string;
  /** @default 'UTC' */
  readonly defaultTimeZone?: string;
}

/**
 * The one place the real reclaimer (functions/reclaimer) is plugged into the local runner and
 * the simulator: the same factory the Lambda uses, with its budget derived as the Lambda's is.
 */
export function createLocalReclaimer(deps: LocalReclaimerDeps): LocalReclaimer {
  const reclaimer = createReclaimer({
    ledger: deps.ledger,
    pending: deps.pending,
    providers: deps.providers,
    metrics: deps.metrics,
    log: deps.log,
    clock: deps.clock ?? Date.now,
    newOwnerToken: randomUUID,
    ...(deps.limitStore ? { limitStore: deps.limitStore } : {}),
    ...(deps.destinations ? { destinations: deps.destinations } : {}),
    ...(deps.consent ? { consent: deps.consent } : {}),
    ...(deps.topicPrefix ? { topicPrefix: deps.topicPrefix } : {}),
    ...(deps.defaultTimeZone ? { defaultTimeZone: deps.defaultTimeZone } : {}),
    timing: { claimTimeoutMs: deps.timing.claimTimeoutMs, retentionMs: deps.timing.retentionMs },
    sendTimeoutMs: deps.timing.sendTimeoutMs,
    messageClasses: deps.messageClasses ?? buildMessageClassRegistry(),
    limits: {
      timeBudgetMs: Math.max(500, deps.timing.functionTimeoutMs - deps.timing.sendTimeoutMs - RECLAIMER_SAFETY_MARGIN_MS),
      maxRowsPerRun: 500,
      pageSize: 25,
      concurrency: deps.concurrency ?? 4,
    },
  });
  return { run: () => reclaimer.run() };
}
