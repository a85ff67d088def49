import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../functions/core/errors';
import { HOLD_MARGIN_SECONDS } from '../../functions/core/queue/quiet-hours-hold';
import { loadSenderConfig } from '../../functions/core/sender-config';

const valid = {
  LEDGER_TABLE_NAME: 'ledger',
  FUNCTION_TIMEOUT_SECONDS: '30',
  CLAIM_TIMEOUT_SECONDS: '120',
  SEND_TIMEOUT_MS: '10000',
  EMAIL_FROM: 'orders@shop.example',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/notifications-dlq',
};

describe('sender configuration, validated at cold start', () => {
  it('accepts a complete configuration and applies defaults', () => {
    const config = loadSenderConfig(valid);
    expect(config).toMatchObject({
      tableName: 'ledger',
      functionTimeoutMs: 30_000,
      claimTimeoutMs: 120_000,
      sendTimeoutMs: 10_000,
      retentionMs: 30 * 86_400_000,
      delivery: { mode: 'aws', emailFrom: 'orders@shop.example' },
      maxConcurrentSends: 16,
    });
    expect([...config.messageClasses.keys()]).toEqual(['otp', 'transactional', 'marketing']);
  });

  it('holds a record for quiet hours at most 12 hours less the batching window, the function timeout and a margin (SQS counts from the receive)', () => {
    expect(loadSenderConfig(valid).longestHoldSeconds).toBe(43_200 - 30 - HOLD_MARGIN_SECONDS);
    expect(loadSenderConfig({ ...valid, QUEUE_BATCHING_WINDOW_SECONDS: '20' }).longestHoldSeconds).toBe(43_200 - 20 - 30 - HOLD_MARGIN_SECONDS);
    expect(() => loadSenderConfig({ ...valid, QUEUE_BATCHING_WINDOW_SECONDS: '301' })).toThrow(/QUEUE_BATCHING_WINDOW_SECONDS/);
  });

  it('reads the lane and whether its governor yields to throttling (the bulk lane’s does), nothing else', () => {
    expect(loadSenderConfig(valid)).toMatchObject({ lane: undefined, yieldsToThrottling: false });
    expect(loadSenderConfig({ ...valid, SEND_LANE: 'bulk', SEND_RATE_YIELDS_TO_THROTTLING: 'true' })).toMatchObject({ lane: 'bulk', yieldsToThrottling: true });
    expect(loadSenderConfig({ ...valid, SEND_LANE: 'urgent', SEND_RATE_YIELDS_TO_THROTTLING: 'false' })).toMatchObject({ lane: 'urgent', yieldsToThrottling: false });
    expect(() => loadSenderConfig({ ...valid, SEND_LANE: 'marketing' })).toThrow(/SEND_LANE: Invalid option: expected one of "urgent"\|"bulk"/);
    expect(() => loadSenderConfig({ ...valid, SEND_RATE_YIELDS_TO_THROTTLING: 'yes' })).toThrow(/SEND_RATE_YIELDS_TO_THROTTLING/);
  });

  it('reads PENDING_INDEX_SHARDS (16 unset), never below the shipped 16 nor above 1000: claims indexed in shards up to 16 stay walked', () => {
    expect(loadSenderConfig(valid).pendingIndexShards).toBe(16);
    expect(loadSenderConfig({ ...valid, PENDING_INDEX_SHARDS: '1000' }).pendingIndexShards).toBe(1000);
    expect(() => loadSenderConfig({ ...valid, PENDING_INDEX_SHARDS: '15' })).toThrow(/PENDING_INDEX_SHARDS: /);
    expect(() => loadSenderConfig({ ...valid, PENDING_INDEX_SHARDS: '1001' })).toThrow(/PENDING_INDEX_SHARDS: /);
    expect(() => loadSenderConfig({ ...valid, PENDING_INDEX_SHARDS: '20.5' })).toThrow(/PENDING_INDEX_SHARDS: /);
  });

  it('trims the text variables: a stray space in a queue URL or sender identity is not part of it', () => {
    const config = loadSenderConfig({ ...valid, SOURCE_QUEUE_URL: ' https://sqs.example/q ', SES_CONFIGURATION_SET: ' events ', EMAIL_FROM: ' orders@shop.example ' });
    expect(config.sourceQueueUrl).toBe('https://sqs.example/q');
    expect(config.delivery).toMatchObject({ emailFrom: 'orders@shop.example', sesConfigurationSet: 'events' });
  });

  it('refuses a claim timeout that does not exceed the function timeout, naming both values', () => {
    const attempt = () => loadSenderConfig({ ...valid, CLAIM_TIMEOUT_SECONDS: '30' });
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(/claim timeout \(30s\) must exceed the sender function timeout \(30s\)/);
  });

  it('refuses a send timeout that Lambda would cut short, naming both values', () => {
    expect(() => loadSenderConfig({ ...valid, SEND_TIMEOUT_MS: '30000' })).toThrow(
      /send timeout \(30000ms\) must be below the sender function timeout \(30000ms\)/,
    );
  });

  it('lists every missing or malformed variable at once', () => {
    expect(() => loadSenderConfig({ FUNCTION_TIMEOUT_SECONDS: 'soon', CLAIM_TIMEOUT_SECONDS: '60' })).toThrow(
      /LEDGER_TABLE_NAME: .*; FUNCTION_TIMEOUT_SECONDS: /,
    );
    expect(() => loadSenderConfig({ LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: '30', CLAIM_TIMEOUT_SECONDS: '60' })).toThrow(
      /EMAIL_FROM: is required when DELIVERY_MODE=aws; DEAD_LETTER_QUEUE_URL: is required/,
    );
  });

  it('outbox mode needs OUTBOX_FILE and no sender identity', () => {
    expect(() => loadSenderConfig({ ...valid, DELIVERY_MODE: 'outbox' })).toThrow(/OUTBOX_FILE: is required when DELIVERY_MODE=outbox/);
    expect(
      loadSenderConfig({ LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: '30', CLAIM_TIMEOUT_SECONDS: '120', DELIVERY_MODE: 'outbox', OUTBOX_FILE: '/tmp/o' })
        .delivery,
    ).toEqual({ mode: 'outbox', outboxFile: '/tmp/o' });
  });

  it('rejects a malformed MESSAGE_CLASSES at cold start', () => {
    expect(() => loadSenderConfig({ ...valid, MESSAGE_CLASSES: '[{"name":"Bad Name","onAmbiguous":"resend"}]' })).toThrow(
      /MESSAGE_CLASSES is invalid at 0\.name/,
    );
  });

  it("rejects a class's push settings that no platform can honour at cold start, and takes valid ones", () => {
    const classes = (push: unknown) => JSON.stringify([{ name: 'otp', onAmbiguous: 'resend', push }]);
    expect(() => loadSenderConfig({ ...valid, MESSAGE_CLASSES: classes({ lifetimeSeconds: 29 * 86_400 }) })).toThrow(
      /MESSAGE_CLASSES is invalid at 0\.push\.lifetimeSeconds/,
    );
    expect(loadSenderConfig({ ...valid, MESSAGE_CLASSES: classes({ lifetimeSeconds: 300, priority: 'normal' }) }).messageClasses.get('otp')?.push).toEqual({
      lifetimeSeconds: 300,
      priority: 'normal',
    });
  });
});

describe('sender configuration: values as the functions use them', () => {
  it('trims text values, and a blank one counts as unset', () => {
    const config = loadSenderConfig({ ...valid, EMAIL_FROM: '  orders@shop.example  ', SES_CONFIGURATION_SET: '   ' });
    expect(config.delivery).toEqual({
      mode: 'aws',
      emailFrom: 'orders@shop.example',
      sesConfigurationSet: undefined,
      smsSenderId: undefined,
      smsOriginationNumber: undefined,
      sms: { provider: 'sns' },
    });
  });

  it('SMS through End User Messaging: its configuration set, origination identity, MaxPrice and protect configuration, trimmed', () => {
    const config = loadSenderConfig({
      ...valid,
      SMS_PROVIDER: 'end-user-messaging',
      SMS_CONFIGURATION_SET: ' notifier-sms ',
      SMS_ORIGINATION_IDENTITY: 'pool-1',
      SMS_MAX_PRICE: '0.10',
      SMS_PROTECT_CONFIGURATION_ID: '  ',
    });
    expect(config.delivery).toMatchObject({
      sms: { provider: 'end-user-messaging', configurationSet: 'notifier-sms', originationIdentity: 'pool-1', maxPrice: '0.10', protectConfigurationId: undefined },
    });
  });

  it('stays in AWS mode when an OUTBOX_FILE is left over', () => {
    expect(loadSenderConfig({ ...valid, OUTBOX_FILE: '/tmp/outbox.jsonl' }).delivery).toMatchObject({ mode: 'aws' });
  });

  it('reads the clock skew in seconds (default 300 s) and the retention in days', () => {
    expect(loadSenderConfig(valid)).toMatchObject({ maxClockSkewMs: 300_000, retentionMs: 30 * 86_400_000 });
    expect(loadSenderConfig({ ...valid, MAX_CLOCK_SKEW_SECONDS: '0', LEDGER_RETENTION_DAYS: '7' })).toMatchObject({
      maxClockSkewMs: 0,
      retentionMs: 7 * 86_400_000,
    });
  });

  it('takes a body limit of up to 1 MiB', () => {
    expect(loadSenderConfig({ ...valid, MAX_BODY_BYTES: String(1024 * 1024) }).maxBodyBytes).toBe(1024 * 1024);
    expect(() => loadSenderConfig({ ...valid, MAX_BODY_BYTES: String(1024 * 1024 + 1) })).toThrow(/MAX_BODY_BYTES: /);
  });

  it('paces only the channels given a rate', () => {
    expect(loadSenderConfig(valid).sendRates).toStrictEqual({});
    expect(loadSenderConfig({ ...valid, SEND_RATE_SMS_PER_SECOND: '5' }).sendRates).toStrictEqual({ sms: 5 });
  });

  it('lists every unsafe timing at once', () => {
    expect(() => loadSenderConfig({ ...valid, CLAIM_TIMEOUT_SECONDS: '30', SEND_TIMEOUT_MS: '30000' })).toThrow(
      /^Unsafe sender configuration: claim timeout .*; send timeout /,
    );
  });
});

describe('sender configuration: how the queue redelivers', () => {
  const queue = { QUEUE_MAX_RECEIVE_COUNT: '100', QUEUE_RETENTION_SECONDS: '345600', QUEUE_VISIBILITY_TIMEOUT_SECONDS: '180' };

  it('without the queue settings there is no redelivery policy (every claim enters the pending index)', () => {
    expect(loadSenderConfig(valid).redelivery).toBeUndefined();
  });

  it('with all three, the policy in milliseconds; the longest gap is the visibility timeout or the backoff cap, whichever is longer', () => {
    const noQuietHours = { MESSAGE_CLASSES: JSON.stringify([{ name: 'marketing', onAmbiguous: 'give-up', quietHours: null }]) };
    expect(loadSenderConfig({ ...valid, ...queue, ...noQuietHours }).redelivery).toEqual({
      maxReceiveCount: 100,
      retentionMs: 345_600_000,
      longestRedeliveryGapMs: 2_400_000, // the default backoff cap (40 min) is longer than 180 s
    });
    expect(loadSenderConfig({ ...valid, ...queue, ...noQuietHours, THROTTLE_BACKOFF_CAP_SECONDS: '60' }).redelivery?.longestRedeliveryGapMs).toBe(180_000);
  });

  it('with a class that has quiet hours (the built-in marketing), the longest gap is 12 hours: a record held for the morning', () => {
    expect(loadSenderConfig({ ...valid, ...queue }).redelivery?.longestRedeliveryGapMs).toBe(43_200_000);
  });

  it('one or two of them is refused, naming each missing one and the ones given', () => {
    expect(() => loadSenderConfig({ ...valid, QUEUE_MAX_RECEIVE_COUNT: '100' })).toThrow(
      "QUEUE_RETENTION_SECONDS: is required with QUEUE_MAX_RECEIVE_COUNT (the queue's redelivery is described by all three); " +
        "QUEUE_VISIBILITY_TIMEOUT_SECONDS: is required with QUEUE_MAX_RECEIVE_COUNT (the queue's redelivery is described by all three)",
    );
    const { QUEUE_VISIBILITY_TIMEOUT_SECONDS: _left, ...two } = queue;
    expect(() => loadSenderConfig({ ...valid, ...two })).toThrow(
      /QUEUE_VISIBILITY_TIMEOUT_SECONDS: is required with QUEUE_MAX_RECEIVE_COUNT, QUEUE_RETENTION_SECONDS \(/,
    );
  });
});
