import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../functions/core/errors';
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
});
