import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { ALARM } from './alarm-names';
import { acrossLanes, anyOccurrence, visibleMessages } from './alarm-metrics';
import type { AlarmGroup, AlarmLane, AlarmSources } from './alarm-spec';

/**
 * Periods the backlog must stay above its threshold: `ApproximateAgeOfOldestMessage` drops whenever the
 * oldest message it counts is received a third time, so one period alone could flap.
 */
export const BACKLOG_AGE_EVALUATION_PERIODS = 3;

/**
 * The oldest message of each lane's queue, the largest of them. Quiet hours hold bulk records up to their longest
 * hold (`quietHoursHoldSeconds`: the window, an hour for a clock change, the spread of a texted country's zones)
 * and a held record ages in its queue: a lane that carries a class with quiet hours (the bulk lane; with one queue,
 * the queue) counts its age less that hold, so a campaign waiting for the morning wakes nobody while a late login
 * code in the urgent lane still does.
 */
const oldestMessageAge = (s: AlarmSources): cloudwatch.IMetric => {
  const age = (lane: AlarmLane) => lane.queue.metricApproximateAgeOfOldestMessage({ period: s.settings.period, statistic: cloudwatch.Stats.MAXIMUM });
  const hold = s.settings.quietHoursHoldSeconds;
  if (hold <= 0) return acrossLanes(s, age, 'max');
  const held = (lane: AlarmLane) => lane.name === 'bulk' || lane.name === 'single';
  const usingMetrics = Object.fromEntries(s.lanes.map((lane) => [lane.name, age(lane)]));
  const terms = s.lanes.map((lane) => (held(lane) ? `FILL(${lane.name}, 0) - ${hold}` : `FILL(${lane.name}, 0)`));
  return new cloudwatch.MathExpression({
    expression: `MAX([${terms.join(', ')}, 0])`,
    usingMetrics,
    label: `oldest message age, less ${hold} s of quiet hours where they hold records`,
    period: s.settings.period,
  });
};

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
