import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { MIN_MAX_RECEIVE_COUNT } from '../../lib/notifier';
import { NotifierStack } from '../../lib/notifier-stack';
import { BASE_PROPS, build, errorOf, newApp } from './helpers';

describe('synth-time invariants: a bad configuration throws naming both values', () => {
  it('claim timeout must exceed the sender function timeout', () => {
    const message = errorOf({ functionTimeout: Duration.seconds(60), claimTimeout: Duration.seconds(60), visibilityTimeout: Duration.minutes(6) });
    expect(message).toMatch(/unsafe configuration/);
    expect(message).toMatch(/claim timeout \(60s\) must exceed the sender function timeout \(60s\)/);
  });

  it('queue visibility timeout must be at least 6 x the function timeout', () => {
    const message = errorOf({ functionTimeout: Duration.seconds(30), visibilityTimeout: Duration.seconds(120) });
    expect(message).toMatch(/queue visibility timeout \(120s\) must be at least 6 x the sender function timeout \(6 x 30s = 180s\)/);
  });

  it('send timeout must be below the function timeout', () => {
    const message = errorOf({ sendTimeout: Duration.seconds(30), functionTimeout: Duration.seconds(30) });
    expect(message).toMatch(/send timeout \(30000ms\) must be below the sender function timeout \(30000ms\)/);
  });

  it('ledger retention must cover queue retention + DLQ retention + replay window', () => {
    const message = errorOf({
      ledgerRetention: Duration.days(20),
      queueRetention: Duration.days(4),
      deadLetterQueueRetention: Duration.days(14),
      replayWindow: Duration.days(7),
    });
    expect(message).toMatch(
      /ledger retention \(1728000s\) must cover queue retention \(345600s\) \+ DLQ retention \(1209600s\) \+ replay window \(604800s\) = 2160000s/,
    );
  });

  it(`maxReceiveCount must be at least ${MIN_MAX_RECEIVE_COUNT}`, () => {
    expect(errorOf({ maxReceiveCount: 3 })).toMatch(/maxReceiveCount \(3\) must be an integer of at least 5/);
  });

  it('ledger retention must be whole days (the handler reads LEDGER_RETENTION_DAYS)', () => {
    expect(errorOf({ ledgerRetention: Duration.hours(30 * 24 + 12) })).toMatch(/ledger retention \(2635200s\) must be a whole number of days/);
  });

  it('fails if a message throttled for 24 hours would reach the dead-letter queue unsent', () => {
    expect(errorOf({ maxReceiveCount: 79 })).toMatch(
      /maxReceiveCount \(79\) with throttle backoff base 10s, cap 2400s waits at least \d+s before the DLQ, less than the 86400s/,
    );
  });

  it('fails if the queue would delete a throttled message before it can reach the dead-letter queue', () => {
    expect(errorOf({ queueRetention: Duration.days(2), deadLetterQueueRetention: Duration.days(7) })).toMatch(
      /queue retention \(172800s\) must exceed the longest throttle backoff over maxReceiveCount 100/,
    );
  });

  it('fails if the sender has less CPU per send in flight than the ledger timeouts were sized for', () => {
    expect(errorOf({ memorySize: 256 })).toMatch(
      /memorySize \(256 MB\) is too small for maxConcurrentSends \(16\): give at least 32 MB per send in flight \(512 MB\)/,
    );
    expect(() => build({ memorySize: 512 })).not.toThrow();
    expect(() => build({ memorySize: 256, maxConcurrentSends: 8 })).not.toThrow();
  });

  it('lists every violation at once', () => {
    const message = errorOf({ maxReceiveCount: 1, sendTimeout: Duration.seconds(40) });
    expect(message).toMatch(/send timeout \(40000ms\)/);
    expect(message).toMatch(/maxReceiveCount \(1\)/);
  });

  it('checks the declared settings of an existing queue too', () => {
    const app = newApp();
    const stack = new NotifierStack(app, 'Holder', { notifier: BASE_PROPS });
    const queue = sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:eu-west-1:111122223333:q');
    expect(
      () =>
        new NotifierStack(app, 'Existing', {
          notifier: {
            ...BASE_PROPS,
            existingQueue: {
              queue,
              deadLetterQueue: queue,
              visibilityTimeout: Duration.seconds(30),
              retentionPeriod: Duration.days(4),
              deadLetterRetentionPeriod: Duration.days(14),
              maxReceiveCount: 2,
            },
          },
        }),
    ).toThrow(/queue visibility timeout \(30s\)[\s\S]*maxReceiveCount \(2\)/);
  });

  it('accepts the defaults and the edge values', () => {
    expect(() => build({})).not.toThrow();
    expect(() =>
      build({
        functionTimeout: Duration.seconds(30),
        claimTimeout: Duration.seconds(31),
        // Highest send timeout that still leaves the reclaimer 1s of work (30s - 2s margin - 1s).
        sendTimeout: Duration.millis(27_000),
        visibilityTimeout: Duration.seconds(180),
        // Fewest receives with which 24 h of throttling (built-in backoff 10 s to 40 min) still ends before the DLQ:
        // 80, and 4 more for the two nights of quiet hours a marketing text may wait through meanwhile (12 to 18 h
        // each: two holds, as SQS takes less than 12 h after a receive).
        maxReceiveCount: 84,
        ledgerRetention: Duration.days(25),
        lanes: false,
      }),
    ).not.toThrow();
  });

  it("with lanes, the urgent lane's 1 s first step needs 84 receives for the same 24 hours", () => {
    expect(() => build({ maxReceiveCount: 84 })).not.toThrow();
    expect(() => build({ maxReceiveCount: 83 })).toThrow(/urgent lane: maxReceiveCount \(83\)/);
    // Texting GB alone (one zone), the bulk lane needs 84 too (a 12-hour night is two holds); the urgent lane with the
    // bulk lane's 10 s step needs 80.
    expect(() => build({ maxReceiveCount: 84, smsCountries: ['GB'], lanes: { urgentThrottleBackoffBase: Duration.seconds(10) } })).not.toThrow();
    expect(() => build({ maxReceiveCount: 83, smsCountries: ['GB'], lanes: { urgentThrottleBackoffBase: Duration.seconds(10) } })).toThrow(/bulk lane: maxReceiveCount \(83\)/);
  });

  it('quiet hours take 4 receives from the lane that carries a class with them (the bulk lane: marketing), and none from the others', () => {
    const urgentTen = { urgentThrottleBackoffBase: Duration.seconds(10) };
    const gb = { lanes: urgentTen, smsCountries: ['GB'] };
    // 21:00-08:00 and an hour for the clocks: 12 hours a night, which SQS takes in two holds (it counts its 12 hours
    // from the receive), for each of the two nights a day of throttling can meet.
    expect(() => build({ maxReceiveCount: 83, ...gb })).toThrow(/bulk lane: maxReceiveCount \(83\)/);
    expect(() => build({ maxReceiveCount: 83, ...gb })).not.toThrow(/urgent lane: maxReceiveCount/);
    expect(() => build({ maxReceiveCount: 84, ...gb })).not.toThrow();
    // Without quiet hours on marketing, the bulk lane needs the 80 of throttling alone.
    const noQuiet = [{ name: 'marketing', onAmbiguous: 'give-up' as const, quietHours: null }];
    expect(() => build({ maxReceiveCount: 80, lanes: urgentTen, messageClasses: noQuiet })).not.toThrow();
  });

  it("quiet hours take more from a lane when a country texted has zones far apart (a US number with no timeZone waits for Honolulu's morning)", () => {
    const urgentTen = { urgentThrottleBackoffBase: Duration.seconds(10) };
    // 11 h + 1 h + 6 h of US zones = 18 h a night: two holds, as 12 h is (less than 12 h fits after a receive).
    expect(() => build({ maxReceiveCount: 83, lanes: urgentTen, smsCountries: ['US', 'GB'] })).toThrow(/bulk lane: maxReceiveCount \(83\)/);
    expect(() => build({ maxReceiveCount: 84, lanes: urgentTen, smsCountries: ['US', 'GB'] })).not.toThrow();
    // ...and twice 18 h of retention instead of twice 12 h: 90 hours of retention are enough for GB alone, not with the US.
    const retention = { lanes: false as const, queueRetention: Duration.hours(90) };
    expect(() => build({ ...retention, smsCountries: ['GB'] })).not.toThrow();
    expect(errorOf({ ...retention, smsCountries: ['US', 'GB'] })).toMatch(
      /queue retention \(324000s\) must exceed the longest throttle backoff over maxReceiveCount 100 \(340950s, quiet hours' 129600s included\)/,
    );
  });

  it('fails when a class\'s quiet hours and a country\'s zones leave no minute of the day to text it, naming each class and country', () => {
    const long = [{ name: 'marketing', onAmbiguous: 'give-up' as const, bulk: true, quietHours: { start: '18:00', end: '11:00', channels: ['sms' as const] } }];
    // 17 h: GB (one zone) keeps 7 hours of daytime, the US (6 h of zones) 1, Russia (10 h) none. A 24-hour hold
    // (17 + 1 + 6) needs more than the default 4 days of retention.
    expect(() => build({ messageClasses: long, smsCountries: ['GB', 'US'], queueRetention: Duration.days(5) })).not.toThrow();
    const message = errorOf({ messageClasses: long, smsCountries: ['GB', 'US', 'RU'] });
    expect(message).toMatch(
      /quiet hours of class marketing \(18:00-11:00\) and RU's zones \(clocks up to 10 h apart\) leave no minute of the day to text a number there with no timeZone: shorten the window or drop the country from smsCountries/,
    );
    expect(message).not.toMatch(/(US|GB)'s zones/);
    // Without SMS the window holds no text: nothing to refuse.
    expect(() => build({ messageClasses: long, smsCountries: undefined, smsMonthlySpendLimitUsd: undefined })).not.toThrow();
  });

  it('names a country code that is none without stumbling on it', () => {
    expect(errorOf({ smsCountries: ['U S', 'US'] })).toMatch(/smsCountries: "U S" not ISO 3166-1 alpha-2 codes/);
  });
});

describe('handler configuration checked at synth', () => {
  it('rejects an invalid message class, naming the entry', () => {
    expect(() =>
      build({ messageClasses: [{ name: 'Bad Name', onAmbiguous: 'resend', lookupFallback: 'give-up', evidenceWaitSeconds: 0, smsType: 'Transactional' }] }),
    ).toThrow(/MESSAGE_CLASSES is invalid at 0\.name/);
  });

  it("rejects a message class's push settings that no platform can honour, naming the field", () => {
    expect(() => build({ messageClasses: [{ name: 'otp', onAmbiguous: 'resend', push: { priority: 'urgent' as 'high' } }] })).toThrow(
      /MESSAGE_CLASSES is invalid at 0\.push\.priority/,
    );
  });

  it('rejects a From that is not an e-mail address', () => {
    expect(() => build({ emailFrom: 'not-an-address' })).toThrow(/emailFrom \(not-an-address\) is not an e-mail address/);
  });

  it('rejects timeouts that leave the reclaimer no time to work after a send', () => {
    expect(() =>
      build({
        functionTimeout: Duration.seconds(12),
        sendTimeout: Duration.seconds(10),
        visibilityTimeout: Duration.seconds(72),
      }),
    ).toThrow(/function timeout \(12000ms\) leaves under 1s of work after the send timeout \(10000ms\)/);
  });

  it('rejects values the handler would refuse at cold start', () => {
    expect(() => build({ maxConcurrentSends: 1000 })).toThrow(/the handler would reject this configuration: .*MAX_CONCURRENT_SENDS/);
  });
});
