import { METRIC, SERVICE } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, HOUR, visibleMessages } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/** The delivery-status path: events that could not be handed on or read, and what they tell of recipients (late bounces and complaints). */
export const DELIVERY_STATUS_ALARMS = {
  [ALARM.statusFailedEvents]: {
    description:
      'Delivery-status events failed after all retries and wait in the failed-events queue: their rows lack evidence until redriven.',
    metric: (s) => visibleMessages(s, s.statusFailedEventQueue),
    threshold: anyOccurrence,
  },
  [ALARM.sesEventDeadLetters]: {
    description:
      "SES events failed the delivery-status function on every receive and wait in the SES events queue's dead-letter queue: their e-mails lack evidence until redriven.",
    metric: (s) => visibleMessages(s, s.sesEventDeadLetterQueue),
    threshold: anyOccurrence,
  },
  [ALARM.sesEventRuleDeadLetters]: {
    description:
      "EventBridge could not hand SES events to the delivery-status function and left them in the rule target's dead-letter queue (sesEventBridgeRule): the queue path carries the same events.",
    metric: (s) => visibleMessages(s, s.sesEventRuleDeadLetterQueue!),
    threshold: anyOccurrence,
    when: (s) => s.sesEventRuleDeadLetterQueue !== undefined,
  },
  [ALARM.smsEventDeadLetters]: {
    description:
      "End User Messaging SMS events failed the delivery-status function on every receive and wait in the events queue's dead-letter queue: their texts lack evidence until redriven.",
    metric: (s) => visibleMessages(s, s.smsEventDeadLetterQueue!),
    threshold: anyOccurrence,
    when: (s) => s.smsEventDeadLetterQueue !== undefined,
  },
  [ALARM.deliveryStatusInvalid]: {
    description:
      'The delivery-status function received input it cannot read as an SES event, an SNS SMS delivery log or an End User Messaging SMS event of a type it knows; it was ignored.',
    metric: (s) => s.metrics.of(SERVICE.status, METRIC.DeliveryStatusInvalid),
    threshold: anyOccurrence,
  },
  [ALARM.deliveryStatusFinalityUnstated]: {
    description:
      "End User Messaging SMS events came without a boolean isFinal: they were recorded as intermediate, so those texts can never be settled undelivered by them and no fallback goes on their word. AWS documents isFinal on every event: its format changed.",
    metric: (s) => s.metrics.of(SERVICE.status, METRIC.DeliveryStatusFinalityUnstated),
    threshold: anyOccurrence,
  },
  [ALARM.lateBounces]: {
    description: 'E-mails SES had accepted bounced (recorded on their ledger rows by the status Lambda): recipients\' addresses have gone bad.',
    metric: (s) => s.metrics.atPeriod(HOUR).of(SERVICE.status, METRIC.LateBounce),
    threshold: (s) => s.settings.lateBouncesPerHour,
  },
  [ALARM.lateComplaints]: {
    description: 'Recipients marked e-mails as spam (complaints recorded on their ledger rows by the status Lambda).',
    metric: (s) => s.metrics.atPeriod(HOUR).of(SERVICE.status, METRIC.LateComplaint),
    threshold: (s) => s.settings.lateComplaintsPerHour,
  },
} satisfies AlarmGroup;
