import { describe, expect, it } from 'vitest';
import { DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import { createLambdaObservability } from '../../functions/adapters/lambda-observability';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { NO_SMS_COUNTRIES } from '../../functions/core/policy/sms-country-table';
import { createLambdaDeliveryContext } from '../../functions/delivery/lambda-delivery-context';

const env = {
  LEDGER_TABLE_NAME: 'ledger',
  FUNCTION_TIMEOUT_SECONDS: '30',
  CLAIM_TIMEOUT_SECONDS: '120',
  DELIVERY_MODE: 'outbox',
  OUTBOX_FILE: '/tmp/never-written.jsonl',
};
const observability = createLambdaObservability('sender');
const unused = { send: async () => ({ kind: 'permanent', reason: 'unused' }) as const };
const providers = { email: unused, sms: unused, push: unused };

describe('the delivery context the Lambdas build', () => {
  it('counts limits in the ledger table: a class with limits is never sent uncounted in Lambda', () => {
    const ctx = createLambdaDeliveryContext(loadSenderConfig(env), observability, { providers, governor: undefined });
    expect(ctx.limitStore).toBeInstanceOf(DynamoDbLimitStore);
  });

  it('texts no country when the bundle has no embedded table (built other than by the construct), and pushes per PUSH_APPLICATION_ARNS', () => {
    const arn = 'arn:aws:sns:us-east-1:123456789012:app/GCM/shop';
    const ctx = createLambdaDeliveryContext(loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: arn }), observability, { providers, governor: undefined });
    expect(ctx.destinations).toEqual({ sms: NO_SMS_COUNTRIES, pushApplicationArns: [arn] });
    expect(createLambdaDeliveryContext(loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: 'none' }), observability, { providers, governor: undefined }).destinations.pushApplicationArns).toEqual([]);
  });

  it('hands the sending edge’s governor to every delivery: a Lambda given a rate share sends at it (the reclaimer once did not)', () => {
    const governor = { acquire: async () => true, throttled: () => undefined };
    const ctx = createLambdaDeliveryContext(loadSenderConfig(env), observability, { providers, governor });
    expect(ctx.governor).toBe(governor);
    expect(ctx.providers).toBe(providers);
    expect(createLambdaDeliveryContext(loadSenderConfig(env), observability, { providers, governor: undefined })).not.toHaveProperty('governor');
  });

  it('indexes claims in PENDING_INDEX_SHARDS shards, the count the reclaimer (built by this same function) walks; 16 unset', () => {
    expect(createLambdaDeliveryContext(loadSenderConfig({ ...env, PENDING_INDEX_SHARDS: '64' }), observability, { providers, governor: undefined }).pendingIndexShards).toBe(64);
    expect(createLambdaDeliveryContext(loadSenderConfig(env), observability, { providers, governor: undefined }).pendingIndexShards).toBe(16);
  });

  it('takes the list of PUSH_APPLICATION_ARNS entry by entry, trimmed, empty entries dropped', () => {
    const a = 'arn:aws:sns:us-east-1:123456789012:app/GCM/shop';
    const b = 'arn:aws:sns:eu-west-1:123456789012:app/APNS/shop.ios';
    expect(loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: ` ${a} ,, ${b} ` }).destinations).toEqual({ pushApplicationArns: [a, b] });
    expect(loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: ' none ' }).destinations).toEqual({ pushApplicationArns: [] });
  });

  it.each([
    ['a prefix before the ARN', 'x arn:aws:sns:us-east-1:123456789012:app/GCM/shop'],
    ['a suffix after it', 'arn:aws:sns:us-east-1:123456789012:app/GCM/shop x'],
    ['a partition that is not aws-something', 'arn:aws0:sns:us-east-1:123456789012:app/GCM/shop'],
  ])('refuses a PUSH_APPLICATION_ARNS entry with %s', (_what, arn) => {
    expect(() => loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: arn })).toThrow(/PUSH_APPLICATION_ARNS.*must be SNS platform application ARNs/);
  });

  it('refuses a PUSH_APPLICATION_ARNS entry that is no platform application ARN', () => {
    expect(() => loadSenderConfig({ ...env, PUSH_APPLICATION_ARNS: 'GCM/shop' })).toThrow(/PUSH_APPLICATION_ARNS.*must be SNS platform application ARNs/);
  });
});
