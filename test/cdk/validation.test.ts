import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { NotifierConfigurationError } from '../../lib/notifier';
import { build } from './helpers';

function refusal(props: Parameters<typeof build>[0]): NotifierConfigurationError {
  try {
    build(props);
  } catch (error) {
    if (error instanceof NotifierConfigurationError) return error;
    throw error;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('prop validation collects every failure', () => {
  it('reports SMS, timing, alarm and handler failures in one error, each with the value given', () => {
    const error = refusal({
      smsEnabled: false,
      smsDeliveryStatusLogs: true,
      smsMonthlySpendLimitUsd: 2,
      claimTimeout: Duration.seconds(10),
      alarms: { providerThrottledRatePercent: 150 },
      maxConcurrentSends: 1000,
    });
    expect(error.violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/smsDeliveryStatusLogs needs smsEnabled \(smsDeliveryStatusLogs: true, smsEnabled: false\)/),
        expect.stringMatching(/^smsMonthlySpendLimitUsd \(2\) and smsSpendAlarmThresholdUsd \(undefined\) need smsEnabled \(false\)/),
        expect.stringMatching(/claim timeout \(10s\) must exceed the sender function timeout \(30s\)/),
        'alarms.providerThrottledRatePercent (150) must be a percentage from 0 to below 100',
        expect.stringMatching(/the handler would reject this configuration: .*MAX_CONCURRENT_SENDS/),
      ]),
    );
  });

  it('lists every violation in its message, one per line', () => {
    const error = refusal({ smsDeliveryStatusSuccessSamplingPercent: 250 });
    expect(error.message).toBe(
      'IdempotentNotifier: unsafe configuration:\n' +
        ' - smsDeliveryStatusSuccessSamplingPercent (250) needs smsDeliveryStatusLogs: true (smsDeliveryStatusLogs: false)\n' +
        ' - smsDeliveryStatusSuccessSamplingPercent (250) must be an integer from 0 to 100',
    );
  });
});
