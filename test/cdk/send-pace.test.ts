import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ENV, loadSenderConfig } from '../../functions/core/sender-config';
import { build, errorOf, propertiesOf, resolveDummy, synth } from './helpers';

/** The urgent lane's sender, the reclaimer (which reads the urgent lane's variables), the bulk lane's sender. */
type Which = 'senderFunction' | 'reclaimerFunction' | 'bulkSender';

/** The environment a function sees, CloudFormation references replaced by dummies. */
function runtimeEnv(props: Parameters<typeof synth>[0], which: Which): Record<string, string> {
  const { stack, template } = synth(props);
  const fn = which === 'bulkSender' ? stack.notifier.lanes[1]?.senderFunction : stack.notifier[which];
  if (!fn) throw new Error(`no ${which} in this stack`);
  const variables = (propertiesOf(template, fn)['Environment'] as { Variables: Record<string, unknown> }).Variables;
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolveDummy(v)]));
}

const FUNCTIONS = ['senderFunction', 'reclaimerFunction'] as const;

describe('send rates', () => {
  it.each(FUNCTIONS)('sets SEND_RATE_*_PER_SECOND from sendRates on the %s', (which) => {
    const env = runtimeEnv({ sendRates: { emailPerSecond: 14, smsPerSecond: 20, pushPerSecond: 0.5 } }, which);
    expect(env).toMatchObject({
      [ENV.sendRateEmailPerSecond]: '14',
      [ENV.sendRateSmsPerSecond]: '20',
      [ENV.sendRatePushPerSecond]: '0.5',
    });
    expect(loadSenderConfig(env).sendRates).toEqual({ email: 14, sms: 20, push: 0.5 });
  });

  it('sets no rate by default (e-mail: SES MaxSendRate at cold start; SMS and push: not paced)', () => {
    const env = runtimeEnv({}, 'senderFunction');
    for (const name of [ENV.sendRateEmailPerSecond, ENV.sendRateSmsPerSecond, ENV.sendRatePushPerSecond]) {
      expect(env[name]).toBeUndefined();
    }
  });

  it('sets only the channels given', () => {
    const env = runtimeEnv({ sendRates: { smsPerSecond: 20 } }, 'senderFunction');
    expect(env[ENV.sendRateSmsPerSecond]).toBe('20');
    expect(env[ENV.sendRateEmailPerSecond]).toBeUndefined();
  });

  it.each([0, -1])('fails if a rate is %s, naming the value', (rate) => {
    expect(errorOf({ sendRates: { emailPerSecond: rate } })).toMatch(
      new RegExp(`sendRates\\.emailPerSecond \\(${rate}\\) must be a positive number of sends per second`),
    );
  });

  it('fails if a rate is above what the handler accepts', () => {
    expect(errorOf({ sendRates: { pushPerSecond: 100_001 } })).toMatch(/sendRates\.pushPerSecond \(100001\) .*at most 100000/);
  });

  it('fails if a rate is not a number', () => {
    expect(errorOf({ sendRates: { smsPerSecond: Number.NaN } })).toMatch(/sendRates\.smsPerSecond \(NaN\)/);
  });

  it('lists every bad rate at once', () => {
    const message = errorOf({ sendRates: { emailPerSecond: 0, smsPerSecond: -5, pushPerSecond: 0 } });
    expect(message).toMatch(/sendRates\.emailPerSecond \(0\)/);
    expect(message).toMatch(/sendRates\.smsPerSecond \(-5\)/);
    expect(message).toMatch(/sendRates\.pushPerSecond \(0\)/);
  });
});

describe('throttle backoff', () => {
  it.each(FUNCTIONS)('without lanes, sets the built-in steps (10 s, 40 min) on the %s by default', (which) => {
    const env = runtimeEnv({ lanes: false }, which);
    expect(env).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '10', [ENV.throttleBackoffCapSeconds]: '2400' });
  });

  it('with lanes, the bulk sender backs off from 10 s, the urgent sender and the reclaimer from 1 s; the cap is shared', () => {
    expect(runtimeEnv({}, 'bulkSender')).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '10', [ENV.throttleBackoffCapSeconds]: '2400' });
    for (const which of FUNCTIONS) {
      expect(runtimeEnv({}, which)).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '1', [ENV.throttleBackoffCapSeconds]: '2400' });
    }
    const configured = { lanes: { urgentThrottleBackoffBase: Duration.seconds(2) } };
    expect(runtimeEnv(configured, 'senderFunction')).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '2' });
  });

  it.each(['senderFunction', 'reclaimerFunction', 'bulkSender'] as const)('sets the configured steps on the %s, and the handler accepts them', (which) => {
    const env = runtimeEnv(
      { throttleBackoff: { base: Duration.seconds(30), cap: Duration.hours(2) }, maxReceiveCount: 40, lanes: which === 'bulkSender' ? undefined : false },
      which,
    );
    expect(env).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '30', [ENV.throttleBackoffCapSeconds]: '7200' });
    expect(loadSenderConfig(env).backoff).toEqual({ baseSeconds: 30, capSeconds: 7200 });
  });

  it('sets the default for the step left out', () => {
    const env = runtimeEnv({ throttleBackoff: { base: Duration.seconds(20) } }, 'bulkSender');
    expect(env).toMatchObject({ [ENV.throttleBackoffBaseSeconds]: '20', [ENV.throttleBackoffCapSeconds]: '2400' });
  });

  it("checks the 24-hour invariant with each lane's own first step, naming the lane that fails", () => {
    // 1 s first steps reach the 24 hours later than 10 s ones: without quiet hours 80 receives do for bulk, not for
    // urgent (84).
    expect(() => build({ maxReceiveCount: 84 })).not.toThrow();
    const noQuiet = [{ name: 'marketing', onAmbiguous: 'give-up' as const, quietHours: null }];
    const message = errorOf({ maxReceiveCount: 83, smsCountries: ['GB'], messageClasses: noQuiet });
    expect(message).toMatch(/urgent lane: maxReceiveCount \(83\) with throttle backoff base 1s/);
    expect(message).not.toMatch(/bulk lane:/);
  });

  it('checks the 24-hour invariant with the configured backoff, not the built-in one', () => {
    // 10 s doubling to 2 h over 39 deferrals waits at least 109,515 s; the built-in 40-minute cap needs 80 receives.
    expect(() => build({ throttleBackoff: { cap: Duration.hours(2) }, maxReceiveCount: 40 })).not.toThrow();
    expect(errorOf({ maxReceiveCount: 40 })).toMatch(/maxReceiveCount \(40\) with throttle backoff base 10s, cap 2400s/);
  });

  it('fails if a message throttled for 24 hours would reach the dead-letter queue with the configured backoff', () => {
    expect(errorOf({ throttleBackoff: { cap: Duration.minutes(10) }, smsCountries: ['GB'] })).toMatch(
      // The bulk lane keeps 4 of its receives for quiet hours (marketing texts to GB, two 12-hour nights of two holds
      // each): 95 deferrals, not 99.
      /bulk lane: maxReceiveCount \(100\) with throttle backoff base 10s, cap 600s waits at least 27015s before the DLQ, less than the 86400s/,
    );
  });

  it('fails if the configured backoff outlasts the queue retention', () => {
    expect(errorOf({ throttleBackoff: { cap: Duration.hours(12) } })).toMatch(
      /queue retention \(345600s\) must exceed the longest throttle backoff over maxReceiveCount 100/,
    );
  });

  it('fails if the base exceeds the cap', () => {
    expect(errorOf({ throttleBackoff: { base: Duration.minutes(50), cap: Duration.minutes(40) } })).toMatch(
      /throttle backoff base \(3000s\) and cap \(2400s\) must satisfy 1 <= base <= cap/,
    );
  });

  it('fails if a step is not a whole number of seconds', () => {
    expect(errorOf({ throttleBackoff: { base: Duration.millis(1500) } })).toMatch(
      /throttleBackoff\.base \(1\.5s\) must be a whole number of seconds/,
    );
  });

  it('lists rate and backoff failures together', () => {
    const message = errorOf({ sendRates: { smsPerSecond: 0 }, throttleBackoff: { cap: Duration.minutes(10) } });
    expect(message).toMatch(/sendRates\.smsPerSecond \(0\)/);
    expect(message).toMatch(/cap 600s waits at least/);
  });
});
