import type { Clock } from '../functions/core/clock';
import type { LogPort } from '../functions/core/observability/log-port';
import { METRIC, type MetricName } from '../functions/core/observability/metric-names';
import type { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import type { LocalAws } from './aws/local-aws';
import { startLocalSesEvents, type LocalSesEvents } from './aws/local-ses-events';
import type { LocalSesOptions } from './aws/local-ses';
import { queueDepth } from './aws/queue-inspection';
import type { WireFaultPlan } from './aws/wire-fault-plan';

/** Share of e-mails whose SES events come past the evidence windows, and that are lost. */
export interface EmailEventFaults {
  readonly late: number;
  readonly lost: number;
}

/** How late a "late" e-mail's events come: past the wire stack's 3 s evidence wait and windows. */
const LATE_EVENTS_MS = 5_000;

/** The local SES's sending events in a wire run: published to the events topic, each e-mail's fate drawn by the plan. */
export function wireSesEventOptions(plan: WireFaultPlan, faults: EmailEventFaults, sink: () => LocalSesEvents | undefined): Pick<LocalSesOptions, 'events' | 'sendingEvents'> {
  return {
    events: (event) => sink()?.publish(event),
    sendingEvents: { fate: (key, messageId) => plan.emailEventFate(key, messageId, faults, LATE_EVENTS_MS) },
  };
}

/** The SES events path of a wire run: the stack's topic, queue and status event source, over the run's (proxied) ledger. */
export function startWireEmailEvidence(
  aws: LocalAws,
  options: { readonly tableName: string; readonly metrics: InMemoryMetrics; readonly log: LogPort; readonly clock: Clock },
): Promise<LocalSesEvents> {
  return startLocalSesEvents({ sqs: aws.sqs, ...options, settled: () => aws.ses.settled() });
}

/** E-mail sends whose ambiguity evidence settled, and those the class's wait settled (the gap left), as a sender counted them. */
export interface EmailSettlement {
  readonly settledByEvidence: number;
  readonly settledByWait: number;
}

export function emailSettlement(metrics: Pick<InMemoryMetrics, 'byDimensions'> | undefined): EmailSettlement {
  const ofEmail = (name: MetricName) =>
    [...(metrics?.byDimensions ?? [])].filter(([key]) => key.startsWith(`${name}|email|`)).reduce((sum, [, n]) => sum + n, 0);
  return { settledByEvidence: ofEmail(METRIC.SentByEvidence), settledByWait: ofEmail(METRIC.SettledByWait) };
}

/** What the SES events path carried in a run. */
export interface EmailEvidenceReport {
  /** E-mails whose events the plan held past the windows, or lost. */
  readonly eventsLate: number;
  readonly eventsLost: number;
  /** Events published to the topic, and records the status function received (redeliveries among them). */
  readonly published: number;
  readonly received: number;
  readonly redeliveries: number;
  /** Records left in the events queue's dead-letter queue. */
  readonly deadLettered: number;
}

export async function emailEvidenceReport(plan: WireFaultPlan, path: LocalSesEvents, aws: LocalAws): Promise<EmailEvidenceReport> {
  const dlq = await queueDepth(aws.sqs.client(), path.path.queue.dlqUrl);
  return {
    eventsLate: plan.emailEvents.late,
    eventsLost: plan.emailEvents.lost,
    published: path.counts.published,
    received: path.source.stats.received,
    redeliveries: path.source.stats.redeliveries,
    deadLettered: dlq.visible + dlq.inFlight,
  };
}
