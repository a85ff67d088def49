import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { ALARM } from './alarm-names';
import { acrossLanes, anyOccurrence, visibleMessages } from './alarm-metrics';
import type { AlarmGroup, AlarmSources } from './alarm-spec';

/**
 * Periods the backlog must stay above its threshold: `ApproximateAgeOfOldestMessage` drops whenever the
 * oldest message it counts is received a third time, so one period alone could flap.
 */
export const BACKLOG_AGE_EVALUATION_PERIODS = 3;

const oldestMessageAge = (s: AlarmSources): cloudwatch.IMetric =>
  acrossLanes(s, (lane) => lane.queue.metricApproximateAgeOfOldestMessage({ period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM }), 'max');

/**
 * Events the topic's lane filters all refused (a body that is not a JSON object): every routed event is
 * filtered out by exactly the other lane's subscription, so filtered-out beyond the published count is unrouted.
 */
const unroutedEvents = (s: AlarmSources, topic: sns.ITopic): cloudwatch.IMetric =>
  new cloudwatch.MathExpression({
    expression: 'MAX([FILL(filtered, 0) + FILL(invalidBody, 0) - FILL(published, 0), 0])',
    usingMetrics: {
      filtered: topic.metricNumberOfNotificationsFilteredOut({ period: s.settings.period }),
      invalidBody: topic.metric('NumberOfNotificationsFilteredOut-InvalidMessageBody', { period: s.settings.period, statistic: cloudwatch.Stats.SUM }),
      published: topic.metricNumberOfMessagesPublished({ period: s.settings.period }),
    },
    label: 'events no lane accepted',
    period: s.settings.period,
  });

/** The queues: dead letters, backlog age, events no lane accepted. */
export const QUEUE_ALARMS = {
  [ALARM.deadLetterQueueNotEmpty]: {
    description: 'The dead-letter queue holds messages: invalid events or messages that exhausted their receives.',
    metric: (s) => acrossLanes(s, (lane) => visibleMessages(s, lane.deadLetterQueue), 'sum'),
    threshold: anyOccurrence,
  },
  [ALARM.oldestMessageAge]: {
    description: 'Messages wait in the main queue longer than expected: the sender is failing, throttled or too slow.',
    metric: oldestMessageAge,
    threshold: (s) => s.settings.oldestMessageAge.toSeconds(),
  },
  [ALARM.backlogAgeNearLimit]: {
    description:
      "The queue backlog does not drain at the account's send rate: its oldest messages approach the dead-letter queue or expiry.",
    metric: oldestMessageAge,
    threshold: (s) => s.settings.backlogAge.toSeconds({ integral: false }),
    evaluationPeriods: () => BACKLOG_AGE_EVALUATION_PERIODS,
  },
  [ALARM.unroutedEvents]: {
    description:
      "Events published to the event topic matched no lane's filter (a body that is not a JSON object with a string messageClass) and were not delivered: the producer must publish again.",
    metric: (s) => unroutedEvents(s, s.eventTopic!),
    threshold: anyOccurrence,
    when: (s) => s.eventTopic !== undefined,
  },
} satisfies AlarmGroup;
