import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Duration } from 'aws-cdk-lib';
import { METRIC, SERVICE } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, visibleMessages } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/**
 * How far behind the ledger the outcome feed may fall before someone is told: a minute's backlog is a burst; ten
 * are a publisher that cannot keep up or keeps failing, and the stream keeps records for 24 hours only.
 */
export const OUTCOME_ITERATOR_AGE_ALARM = Duration.minutes(10);

/** The outcome feed: producers hear of every message's outcome, late at worst, never not at all. */
export const OUTCOME_ALARMS = {
  [ALARM.outcomeIteratorAge]: {
    description: `The outcome publisher is more than ${OUTCOME_ITERATOR_AGE_ALARM.toMinutes()} minutes behind the ledger's stream: producers hear of outcomes late, and records older than 24 hours leave the stream.`,
    metric: (s) => s.functions.outcomes.metric('IteratorAge', { period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM }),
    threshold: () => OUTCOME_ITERATOR_AGE_ALARM.toMilliseconds(),
  },
  [ALARM.outcomePublisherErrors]: {
    description: 'The outcome publisher failed whole invocations (crash, timeout, configuration error); the mapping retries the batch, split in two.',
    metric: (s) => s.functions.outcomes.metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }),
    threshold: anyOccurrence,
  },
  [ALARM.outcomeEntriesFailed]: {
    description: 'The event bus refused outcome events (PutEvents failed entries or calls); they are sent again, and their records handed back, until the bus takes them.',
    metric: (s) => s.metrics.of(SERVICE.outcomes, METRIC.OutcomeEntryFailed),
    threshold: anyOccurrence,
  },
  [ALARM.outcomeFailedBatches]: {
    description: "The outcome stream mapping gave up on batches (retries or record age exhausted) and parked their place in the stream in the on-failure queue: producers have not heard of those outcomes until they are replayed, within the stream's 24 hours.",
    metric: (s) => visibleMessages(s, s.outcomeFailedBatchQueue),
    threshold: anyOccurrence,
  },
} satisfies AlarmGroup;
