import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { logicalId, propertiesOf, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;
/** This notifier's own namespace: the dashboard reads no other. */
const METRICS_NAMESPACE = n.metricsNamespace;

describe('dashboard', () => {
  const body = JSON.stringify(propertiesOf(template, n.dashboard)['DashboardBody']);

  it.each([
    METRIC.Sent,
    METRIC.DuplicateSuppressed,
    METRIC.AmbiguousOutcome,
    METRIC.ResentAfterAmbiguity,
    METRIC.GaveUpAfterAmbiguity,
    METRIC.SentByEvidence,
    METRIC.StalePendingFound,
    METRIC.DeliveryStatusRecorded,
    METRIC.DeliveryStatusSuperseded,
    METRIC.DeliveryStatusUnmatched,
    METRIC.DeliveryStatusInvalid,
    METRIC.ProviderThrottled,
    METRIC.ProviderQuotaExhausted,
    METRIC.ProviderConfigurationFault,
    METRIC.ProviderErrorUnrecognised,
    METRIC.RateLimitedDeferral,
    METRIC.RecordBackedOff,
    METRIC.RecordRetried,
    METRIC.Suppressed,
    METRIC.LimitStoreError,
  ])('graphs %s', (metric) => {
    expect(body).toContain(`\\"${METRICS_NAMESPACE}\\",\\"${metric}\\"`);
  });

  it('graphs suppressed messages by class and reason with a SEARCH over the reason dimension', () => {
    expect(body).toContain(`SEARCH('{${METRICS_NAMESPACE},messageClass,reason,service} MetricName=\\\\\\"${METRIC.Suppressed}\\\\\\"', 'Sum', 300)`);
  });

  it('graphs failures by channel with a SEARCH over the channel dimension', () => {
    for (const channel of CHANNELS) {
      expect(body).toContain(
        `SUM(SEARCH('{${METRICS_NAMESPACE},channel,messageClass,service} MetricName=\\\\\\"${METRIC.PermanentFailure}\\\\\\" channel=\\\\\\"${channel}\\\\\\"', 'Sum', 300))`,
      );
    }
  });

  it('graphs throttled and rate-limited sends per channel with a SEARCH over the channel dimension', () => {
    for (const metric of [METRIC.ProviderThrottled, METRIC.RateLimitedDeferral]) {
      for (const channel of CHANNELS) {
        expect(body).toContain(
          `SUM(SEARCH('{${METRICS_NAMESPACE},channel,messageClass,service} MetricName=\\\\\\"${metric}\\\\\\" channel=\\\\\\"${channel}\\\\\\"', 'Sum', 300))`,
        );
      }
    }
  });

  it('graphs recorded and unmatched delivery status per channel with a SEARCH over the status service', () => {
    for (const metric of [METRIC.DeliveryStatusRecorded, METRIC.DeliveryStatusUnmatched]) {
      for (const channel of ['email', 'sms']) {
        expect(body).toContain(
          `SUM(SEARCH('{${METRICS_NAMESPACE},channel,service} MetricName=\\\\\\"${metric}\\\\\\" service=\\\\\\"status\\\\\\" channel=\\\\\\"${channel}\\\\\\"', 'Sum', 300))`,
        );
      }
    }
  });

  it('graphs errors, throttles and duration of all three functions', () => {
    for (const fn of [n.senderFunction, n.reclaimerFunction, n.statusFunction]) {
      expect(body).toContain(`{\"Ref\":\"${logicalId(fn)}\"}`);
    }
    for (const label of ['status errors', 'status throttles', 'status p99']) expect(body).toContain(label);
  });

  it('graphs queue depth and age, Lambda duration and concurrency', () => {
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateAgeOfOldestMessage',
      'Duration',
      'ConcurrentExecutions',
    ]) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
    expect(body).toContain('\\"stat\\":\\"p99\\"');
  });

  it('shows the status of every alarm', () => {
    expect(body).toContain('\\"type\\":\\"alarm\\"');
    for (const alarm of Object.values(n.alarms)) {
      expect(body).toContain(`"${logicalId(alarm)}","Arn"`);
    }
  });
});
