import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, CONTEXT_PREFIX, notifierPropsFromContext } from '../../lib/context-config';
import { IdempotentNotifier, type IdempotentNotifierProps } from '../../lib/notifier';
import { STUB_ENTRY, TEST_EMAIL_FROM, cdkJsonContext, newApp } from './helpers';

/** A stack whose notifier props come from the cdk.json context plus `context` overrides. */
function fromContext(context: Record<string, unknown> = {}): { stack: Stack; props: IdempotentNotifierProps } {
  const stack = new Stack(newApp(context), 'FromContext');
  return { stack, props: notifierPropsFromContext(stack) };
}

/** Builds the notifier from context (with the stub handler entries). */
function buildFromContext(context: Record<string, unknown> = {}): Stack {
  const { stack, props } = fromContext(context);
  new IdempotentNotifier(stack, 'Notifier', { ...props, senderEntry: STUB_ENTRY, reclaimerEntry: STUB_ENTRY, statusEntry: STUB_ENTRY, outcomesEntry: STUB_ENTRY });
  return stack;
}

describe('cdk.json context', () => {
  it('only uses known notifier keys', () => {
    const keys = Object.keys(cdkJsonContext()).filter((k) => k.startsWith(CONTEXT_PREFIX));
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(CONTEXT_KEYS).toContain(key.slice(CONTEXT_PREFIX.length));
  });

  it('disables CLI telemetry', () => {
    expect(cdkJsonContext()['cli-telemetry']).toBe(false);
  });

  it('holds defaults that pass every synth-time invariant', () => {
    const { props } = fromContext();
    expect(props).toMatchObject({
      emailFrom: TEST_EMAIL_FROM,
      functionTimeout: Duration.seconds(30),
      claimTimeout: Duration.seconds(120),
      visibilityTimeout: Duration.seconds(180),
      ledgerRetention: Duration.days(30),
      maxReceiveCount: 100,
    });
    expect(() => buildFromContext()).not.toThrow();
  });
});

describe('notifierPropsFromContext', () => {
  it('parses command-line strings (-c notifier:KEY=VALUE)', () => {
    const { props } = fromContext({
      'notifier:functionTimeoutSeconds': '20',
      'notifier:smsEnabled': 'false',
      'notifier:pushPlatformApplications': 'APNS/a, GCM/b',
      'notifier:messageClasses': '[{"name":"billing","onAmbiguous":"give-up"}]',
      'notifier:sendTimeoutMs': '5000',
      'notifier:alarmEmails': 'oncall@shop.acme.dev, team@shop.acme.dev',
    });
    expect(props.functionTimeout?.toSeconds()).toBe(20);
    expect(props.smsEnabled).toBe(false);
    expect(props.pushPlatformApplications).toEqual(['APNS/a', 'GCM/b']);
    expect(props.messageClasses).toEqual([{ name: 'billing', onAmbiguous: 'give-up' }]);
    expect(props.sendTimeout?.toMilliseconds()).toBe(5000);
    expect(props.alarms?.emails).toEqual(['oncall@shop.acme.dev', 'team@shop.acme.dev']);
  });

  it('parses the delivery-status keys', () => {
    const { props } = fromContext({
      'notifier:sesEventDestination': 'false',
      'notifier:smsDeliveryStatusLogs': 'true',
      'notifier:smsDeliveryStatusSuccessSamplingPercent': '25',
    });
    expect(props.sesEventDestination).toBe(false);
    expect(props.smsDeliveryStatusLogs).toBe(true);
    expect(props.smsDeliveryStatusSuccessSamplingPercent).toBe(25);
  });

  it('parses the send rates and the throttle backoff', () => {
    const { props } = fromContext({
      'notifier:sendRateEmailPerSecond': '14',
      'notifier:sendRateSmsPerSecond': 20,
      'notifier:sendRatePushPerSecond': '0.5',
      'notifier:throttleBackoffBaseSeconds': '30',
      'notifier:throttleBackoffCapSeconds': 7200,
    });
    expect(props.sendRates).toEqual({ emailPerSecond: 14, smsPerSecond: 20, pushPerSecond: 0.5 });
    expect(props.throttleBackoff?.base?.toSeconds()).toBe(30);
    expect(props.throttleBackoff?.cap?.toSeconds()).toBe(7200);
  });

  it('parses the provider-pace alarm keys', () => {
    const { props } = fromContext({
      'notifier:providerThrottledRatePercent': '2',
      'notifier:sustainedRateLimitingMinutes': '30',
      'notifier:backlogAgeMinutes': '240',
    });
    expect(props.alarms).toMatchObject({ providerThrottledRatePercent: 2 });
    expect(props.alarms?.sustainedRateLimiting?.toMinutes()).toBe(30);
    expect(props.alarms?.backlogAge?.toMinutes()).toBe(240);
  });

  it('parses the account-protection alarm keys and the metrics namespace', () => {
    const { props } = fromContext({
      'notifier:sesBounceRatePercent': '3',
      'notifier:sesComplaintRatePercent': '0.08',
      'notifier:lateBouncesPerHour': 20,
      'notifier:lateComplaintsPerHour': '1',
      'notifier:smsSuccessRatePercent': '80',
      'notifier:metricsNamespace': 'Shop/Notifier',
      'notifier:sesRequireTls': 'false',
      'notifier:senderReservedConcurrency': '20',
      'notifier:statusReservedConcurrency': 3,
    });
    expect(props).toMatchObject({ sesRequireTls: false, senderReservedConcurrency: 20, statusReservedConcurrency: 3 });
    expect(props.alarms).toMatchObject({
      sesBounceRatePercent: 3,
      sesComplaintRatePercent: 0.08,
      lateBouncesPerHour: 20,
      lateComplaintsPerHour: 1,
      smsSuccessRatePercent: 80,
    });
    expect(props.metricsNamespace).toBe('Shop/Notifier');
  });

  it('reads the lanes from context: on by default, off with notifier:lanes=false, shaped by the lane keys', () => {
    expect(fromContext().props.lanes).toEqual({ bulkClasses: undefined, bulkRateShare: undefined, urgentMaxConcurrency: undefined, urgentThrottleBackoffBase: undefined });
    expect(fromContext({ 'notifier:lanes': 'false' }).props.lanes).toBe(false);
    const lanes = fromContext({
      'notifier:bulkClasses': 'marketing',
      'notifier:bulkRateShare': '0.7',
      'notifier:urgentMaxConcurrency': '4',
      'notifier:urgentThrottleBackoffBaseSeconds': '2',
    }).props.lanes;
    expect(lanes).toMatchObject({ bulkClasses: ['marketing'], bulkRateShare: 0.7, urgentMaxConcurrency: 4 });
    expect(lanes === false ? undefined : lanes?.urgentThrottleBackoffBase?.toSeconds()).toBe(2);
    expect(() => buildFromContext({ 'notifier:bulkRateShare': '1.5' })).toThrow(/lanes\.bulkRateShare \(1\.5\)/);
  });

  it('fails at synth if a context send rate is not positive, naming the value', () => {
    expect(() => buildFromContext({ 'notifier:sendRateSmsPerSecond': '0' })).toThrow(/sendRates\.smsPerSecond \(0\) must be a positive number/);
  });

  it('fails at synth if the context backoff lets a throttled message reach the DLQ within 24 hours', () => {
    expect(() => buildFromContext({ 'notifier:throttleBackoffCapSeconds': '600' })).toThrow(/cap 600s waits at least 28215s before the DLQ/);
  });

  it('rejects an unknown notifier key (a typo must not silently fall back to a default)', () => {
    expect(() => fromContext({ 'notifier:functionTimeoutSecs': 10 })).toThrow(
      /Unknown context key\(s\): notifier:functionTimeoutSecs/,
    );
  });

  it('rejects a value of the wrong type, naming key and value', () => {
    expect(() => fromContext({ 'notifier:maxReceiveCount': 'ten' })).toThrow(
      /notifier:maxReceiveCount \("ten"\) must be a number/,
    );
    expect(() => fromContext({ 'notifier:logRetentionDays': 31 })).toThrow(/notifier:logRetentionDays \(31\) must be one of/);
  });

  it('fails if emailFrom is missing, saying where to set it', () => {
    expect(() => fromContext({ 'notifier:emailFrom': '' })).toThrow(
      /notifier:emailFrom is required: .*-c notifier:emailFrom=notifications@mail\.yourcompany\.com/,
    );
  });

  it('fails at synth if emailFrom uses a reserved domain', () => {
    expect(() => buildFromContext({ 'notifier:emailFrom': 'notifications@example.com' })).toThrow(
      /emailFrom \(notifications@example\.com\) uses the reserved domain example\.com/,
    );
  });

  it('makes synth fail on an unsafe context value', () => {
    expect(() => buildFromContext({ 'notifier:claimTimeoutSeconds': 10 })).toThrow(
      /claim timeout \(10s\) must exceed the sender function timeout \(30s\)/,
    );
    expect(() => buildFromContext({ 'notifier:maxReceiveCount': '4' })).toThrow(/maxReceiveCount \(4\)/);
  });

  it('imports an alarm topic by ARN instead of creating one', () => {
    const stack = buildFromContext({ 'notifier:alarmTopicArn': 'arn:aws:sns:eu-west-1:111122223333:oncall' });
    const template = Template.fromStack(stack);
    // Only the lanes' event topic and the SES events topic: no alarm topic of its own.
    const topics = Object.values(template.findResources('AWS::SNS::Topic')) as { Properties: { DisplayName?: string } }[];
    expect(topics.map((t) => t.Properties.DisplayName).sort()).toEqual(['Notification events: routed into the lanes by messageClass', 'SES events of the notifier'].sort());
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm['Properties']['AlarmActions']).toEqual(['arn:aws:sns:eu-west-1:111122223333:oncall']);
    }
  });
});
