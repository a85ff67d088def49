import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC, SERVICE } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, visibleMessages } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/** Channel fallback: the next channel only when the one before certainly did not arrive, and never lost. */
export const FALLBACK_ALARMS = {
  [ALARM.fallbackAfterDelivered]: {
    description: 'A primary message was proved delivered after its fallback had gone out: the recipient has it on two channels (a class that falls back without evidence, or a late delivery report).',
    metric: (s) => s.metrics.of(SERVICE.fallback, METRIC.FallbackAfterDelivered),
    threshold: anyOccurrence,
  },
  [ALARM.fallbackTriggerErrors]: {
    description: 'The fallback trigger failed whole invocations (crash, timeout, configuration error); the mapping retries the batch, split in two.',
    metric: (s) => s.functions.fallback.metricErrors({ period: s.settings.period, statistic: cloudwatch.Stats.SUM }),
    threshold: anyOccurrence,
  },
  [ALARM.fallbackFailedBatches]: {
    description: "The fallback stream mapping gave up on batches and parked their place in the stream: the fallbacks of those primaries were never asked for until the records are replayed, within the stream's 24 hours.",
    metric: (s) => visibleMessages(s, s.fallbackFailedBatchQueue),
    threshold: anyOccurrence,
  },
} satisfies AlarmGroup;
