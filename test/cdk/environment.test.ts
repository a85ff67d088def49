import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_MESSAGE_CLASSES, type MessageClass } from '../../functions/core/message-class';
import { ENV, loadSenderConfig } from '../../functions/core/sender-config';
import { TEST_EMAIL_FROM, propertiesOf, resolveDummy, synth } from './helpers';

const ENV_NAMES: readonly string[] = Object.values(ENV);

function runtimeEnv(props: Parameters<typeof synth>[0] = {}, which: 'senderFunction' | 'reclaimerFunction' = 'senderFunction') {
  const { stack, template } = synth(props);
  const variables = (propertiesOf(template, stack.notifier[which])['Environment'] as { Variables: Record<string, unknown> })
    .Variables;
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolveDummy(v)]));
}

const extraClass: MessageClass = {
  name: 'billing',
  onAmbiguous: 'lookup',
  lookupFallback: 'give-up',
  evidenceWaitSeconds: 120,
  smsType: 'Transactional',
  limits: [],
};

describe('function environment', () => {
  it.each(['senderFunction', 'reclaimerFunction'] as const)('%s: every variable is one the handler reads (a value of ENV)', (which) => {
    const env = runtimeEnv({ smsSenderId: 'ACME', smsOriginationNumber: '+15550100', messageClasses: [extraClass] }, which);
    for (const name of Object.keys(env)) expect(ENV_NAMES).toContain(name);
  });

  it('is accepted by loadSenderConfig once CloudFormation references are resolved', () => {
    const env = runtimeEnv();
    const config = loadSenderConfig(env);
    expect(config).toMatchObject({
      tableName: env[ENV.tableName],
      functionTimeoutMs: 30_000,
      claimTimeoutMs: 120_000,
      sendTimeoutMs: 10_000,
      retentionMs: 30 * 86_400_000,
      maxClockSkewMs: 300_000,
      delivery: { mode: 'aws', emailFrom: TEST_EMAIL_FROM, sesConfigurationSet: env[ENV.sesConfigurationSet] },
      deadLetterQueueUrl: env[ENV.deadLetterQueueUrl],
      maxConcurrentSends: 16,
      maxBodyBytes: 65_536,
    });
    expect([...config.messageClasses.keys()].sort()).toEqual(BUILT_IN_MESSAGE_CLASSES.map((c) => c.name).sort());
  });

  it('sets DELIVERY_MODE=aws with the required EMAIL_FROM and DEAD_LETTER_QUEUE_URL', () => {
    const env = runtimeEnv();
    expect(env[ENV.deliveryMode]).toBe('aws');
    expect(env[ENV.emailFrom]).toBe(TEST_EMAIL_FROM);
    expect(env[ENV.deadLetterQueueUrl]).toMatch(/^dummy-/);
    expect(env[ENV.outboxFile]).toBeUndefined();
  });

  it('passes SMS settings and extra message classes through, and the handler accepts them', () => {
    const env = runtimeEnv({ smsSenderId: 'ACME', smsOriginationNumber: '+15550100', messageClasses: [extraClass] });
    const config = loadSenderConfig(env);
    expect(config.delivery).toMatchObject({ smsSenderId: 'ACME', smsOriginationNumber: '+15550100' });
    expect(config.messageClasses.get('billing')).toEqual(extraClass);
    expect(JSON.parse(env[ENV.messageClasses] ?? '')).toEqual([extraClass]);
  });

  it('names the source queue (throttled records are backed off on it) and splits the send rate over every sender and the reclaimer', () => {
    const env = runtimeEnv({ maxConcurrency: 4 });
    expect(env[ENV.sourceQueueUrl]).toMatch(/^dummy-/);
    expect(env[ENV.sendRateShares]).toBe('5');
    expect(loadSenderConfig(env)).toMatchObject({ sourceQueueUrl: env[ENV.sourceQueueUrl], sendRateShares: 5 });
  });

  it('derives the timing variables from the construct props', () => {
    const env = runtimeEnv({});
    expect(env).toMatchObject({
      [ENV.functionTimeoutSeconds]: '30',
      [ENV.claimTimeoutSeconds]: '120',
      [ENV.sendTimeoutMs]: '10000',
      [ENV.ledgerRetentionDays]: '30',
      [ENV.maxClockSkewSeconds]: '300',
    });
  });

  it('synthesizes without warnings or errors', () => {
    const { stack } = synth({ smsMonthlySpendLimitUsd: 10 });
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
  });
});
