import { METRIC, SERVICE } from '../../functions/core/observability/metric-names';
import { ALARM } from './alarm-names';
import { anyOccurrence, sender, senderRatePercent } from './alarm-metrics';
import type { AlarmGroup } from './alarm-spec';

/** What became of the messages: duplicates suppressed, ambiguity resent or given up, permanent failures, invalid events, dead owners. */
export const SENDING_ALARMS = {
  [ALARM.duplicateSuppressedRate]: {
    description:
      'Redelivered messages were suppressed by the ledger more often than expected: the broker is redelivering (slow or failing sender, visibility timeout too short, producer retries).',
    metric: (s) => senderRatePercent(s, METRIC.DuplicateSuppressed, 'Duplicate suppressed %'),
    threshold: (s) => s.settings.duplicateSuppressedRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.resentAfterAmbiguity]: {
    description: 'A message whose first send had an unknown outcome was sent again: a recipient may have received it twice.',
    metric: (s) => sender(s, METRIC.ResentAfterAmbiguity),
    threshold: anyOccurrence,
  },
  [ALARM.gaveUpAfterAmbiguity]: {
    description: 'A message whose send had an unknown outcome was not sent again: a recipient may have received nothing.',
    metric: (s) => sender(s, METRIC.GaveUpAfterAmbiguity),
    threshold: anyOccurrence,
  },
  [ALARM.ambiguityLoopStopped]: {
    description:
      'Provider calls of one message failed the same way, with no answer from the provider, on 3 consecutive attempts: it was ended UNKNOWN instead of sent again. A recipient may have received nothing, or up to 3 copies; the cause repeats (a fault of our own or a provider that never answers).',
    metric: (s) => s.metrics.sendingFunctions(METRIC.AmbiguityLoopStopped, 'loop'),
    threshold: anyOccurrence,
  },
  [ALARM.settleBoundReached]: {
    description:
      'A message was still unsettled its class\'s bound after its first claim (otp 30 minutes, otherwise half the ledger retention) and was ended without a call: UNKNOWN if an earlier call may have sent it, FAILED if none can have. A provider that keeps failing one message, or a row that never settles.',
    metric: (s) => s.metrics.sendingFunctions(METRIC.SettleBoundReached, 'bound'),
    threshold: anyOccurrence,
  },
  [ALARM.keptLedgerWriteDropped]: {
    description:
      'The ledger refused a write for good (an error no retry can fix, such as a ValidationException): it was not kept for later. Its message\'s next receive sees an owner that died.',
    metric: (s) => sender(s, METRIC.KeptLedgerWriteDropped),
    threshold: anyOccurrence,
  },
  [ALARM.permanentFailureRate]: {
    description:
      'Providers rejected messages permanently (bad addresses, unverified identity, opted-out numbers, disabled endpoints).',
    metric: (s) => senderRatePercent(s, METRIC.PermanentFailure, 'Permanent failure %'),
    threshold: (s) => s.settings.permanentFailureRatePercent,
    evaluationPeriods: (s) => s.settings.rateEvaluationPeriods,
  },
  [ALARM.invalidEvent]: {
    description: 'A producer sent an event that can never be processed; it was moved to the dead-letter queue with its reason.',
    metric: (s) => sender(s, METRIC.InvalidEvent),
    threshold: anyOccurrence,
  },
  [ALARM.stalePendingFound]: {
    description: 'The reclaimer found PENDING ledger rows whose claim expired: a sender attempt died mid-send.',
    metric: (s) => s.metrics.of(SERVICE.reclaimer, METRIC.StalePendingFound),
    threshold: anyOccurrence,
  },
} satisfies AlarmGroup;
