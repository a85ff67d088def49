import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { senderRatePercent, smsEnabled } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/** Consent and quiet hours at work: bulk messages to people who withdrew consent, bulk messages held for the morning. */
export const CONSENT_ALARMS = {
  [ALARM.unsubscribedRate]: {
    description:
      'An unusual share of bulk e-mails went to contacts who had unsubscribed (never sent, or bounced by SES): a producer keeps mailing people who left its list. The metric Unsubscribed has the class and channel as dimensions.',
    metric: (s) => senderRatePercent(s, METRIC.Unsubscribed, 'Unsubscribed %'),
    threshold: (s) => s.settings.unsubscribedRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.optedOutRate]: {
    description:
      'An unusual share of bulk texts went to numbers that had opted out (replied STOP): a producer keeps texting people who asked it to stop. The metric OptedOut has the class and channel as dimensions.',
    metric: (s) => senderRatePercent(s, METRIC.OptedOut, 'OptedOut %'),
    threshold: (s) => s.settings.optedOutRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
    when: smsEnabled,
  },
  [ALARM.quietHoursDeferredRate]: {
    description:
      "Most bulk messages arrive inside their recipients' quiet hours and wait for the morning: campaigns are scheduled for the recipients' night, and come due together when the window ends.",
    metric: (s) => senderRatePercent(s, METRIC.QuietHoursDeferred, 'QuietHoursDeferred %'),
    threshold: (s) => s.settings.quietHoursDeferredRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
    when: (s) => s.settings.quietHoursHoldSeconds > 0,
  },
} satisfies AlarmGroup;
