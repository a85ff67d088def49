import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_MESSAGE_CLASSES, type MessageClass } from '../../functions/core/policy/message-class';
import { ENV, loadSenderConfig } from '../../functions/core/sender-config';
import { TEST_EMAIL_FROM, logicalId, propertiesOf, resolveDummy, synth } from './helpers';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

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
  push: DEFAULT_PUSH_POLICY,
  bulk: false,
  quietHours: undefined,
  fallback: { enabled: true },
};

describe('function environment', () => {
  it.each(['senderFunction', 'reclaimerFunction'] as const)('%s: every variable is one the handler reads (a value of ENV)', (which) => {
    const env = runtimeEnv({ smsSenderId: 'ACME', smsOriginationNumber: '+15550100', messageClasses: [extraClass] }, which);
    for (const name of Object.keys(env)) expect(ENV_NAMES).toContain(name);
  });

  it('refuses unknown event fields only when refuseUnknownEventFields says so (off: the variable is not written)', () => {
    expect(runtimeEnv()[ENV.refuseUnknownEventFields]).toBeUndefined();
    expect(loadSenderConfig(runtimeEnv()).refuseUnknownEventFields).toBe(false);
    const on = runtimeEnv({ refuseUnknownEventFields: true });
    expect(on[ENV.refuseUnknownEventFields]).toBe('true');
    expect(loadSenderConfig(on).refuseUnknownEventFields).toBe(true);
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
    const env = runtimeEnv({ maxConcurrency: 4, lanes: false });
    expect(env[ENV.sourceQueueUrl]).toMatch(/^dummy-/);
    expect(env[ENV.sendRateShares]).toBe('5');
    expect(loadSenderConfig(env)).toMatchObject({ sourceQueueUrl: env[ENV.sourceQueueUrl], sendRateShares: 5, sendRateAccountShare: 1, lane: undefined });
  });

  it("gives each lane's sender its queue, its DLQ and its pace: urgent the whole rate over its concurrency + the reclaimer, bulk its share", () => {
    const s = synth({ maxConcurrency: 4, lanes: { urgentMaxConcurrency: 3, bulkRateShare: 0.7 } });
    const [urgent, bulk] = s.stack.notifier.lanes.map((lane) => {
      const variables = (propertiesOf(s.template, lane.senderFunction)['Environment'] as { Variables: Record<string, unknown> }).Variables;
      return { lane, env: Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolveDummy(v)])) as Record<string, string>, raw: variables };
    });
    expect(urgent?.raw[ENV.sourceQueueUrl]).toEqual({ Ref: logicalId(urgent!.lane.queue) });
    expect(bulk?.raw[ENV.sourceQueueUrl]).toEqual({ Ref: logicalId(bulk!.lane.queue) });
    expect(bulk?.raw[ENV.deadLetterQueueUrl]).toEqual({ Ref: logicalId(bulk!.lane.deadLetterQueue) });
    expect(loadSenderConfig(urgent!.env)).toMatchObject({ lane: 'urgent', sendRateShares: 4, sendRateAccountShare: 1, yieldsToThrottling: false });
    expect(loadSenderConfig(bulk!.env)).toMatchObject({ lane: 'bulk', sendRateShares: 4, sendRateAccountShare: 0.7, yieldsToThrottling: true });
    // The reclaimer paces as one more urgent process.
    const reclaimer = (propertiesOf(s.template, s.stack.notifier.reclaimerFunction)['Environment'] as { Variables: Record<string, unknown> }).Variables;
    expect(reclaimer).toEqual(urgent?.raw);
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
