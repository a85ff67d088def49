import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { readOutbox } from '../../functions/adapters/outbox-provider';
import { silentLog } from '../../functions/core/observability/log-port';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { onDemandSending } from '../../functions/delivery/on-demand-sending';
import { tempDir } from '../support/temp-dir';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

const loads = vi.hoisted(() => ({ count: 0, throttled: [] as string[] }));
vi.mock('../../functions/delivery/provider-wiring', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../functions/delivery/provider-wiring')>();
  return {
    ...original,
    createProviders: (...args: Parameters<typeof original.createProviders>) => {
      loads.count += 1;
      return original.createProviders(...args);
    },
    createSendRateGovernor: async (...args: Parameters<typeof original.createSendRateGovernor>) => {
      const governor = await original.createSendRateGovernor(...args);
      return governor && { acquire: governor.acquire.bind(governor), throttled: (channel: Parameters<typeof governor.throttled>[0]) => loads.throttled.push(channel) };
    },
  };
});

function outboxConfig(extra: Record<string, string> = {}) {
  const outboxFile = join(tempDir('notifier-on-demand-'), 'outbox.jsonl');
  const config = loadSenderConfig({
    LEDGER_TABLE_NAME: 'ledger',
    FUNCTION_TIMEOUT_SECONDS: '30',
    CLAIM_TIMEOUT_SECONDS: '120',
    DELIVERY_MODE: 'outbox',
    OUTBOX_FILE: outboxFile,
    ...extra,
  });
  return { config, outboxFile };
}

const sms = (key: string): ProviderRequest => ({
  key,
  message: { channel: 'sms', to: '+15550100123', text: 'Your code is 123456' },
  messageClass: 'otp',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'login-code',
});

describe('the reclaimer sending edge loads on its first use', () => {
  it('nothing is built at wiring; the first send builds the providers once, and every channel, look-up and rate check shares them', async () => {
    loads.count = 0;
    const { config, outboxFile } = outboxConfig();
    const sending = onDemandSending(config, silentLog);
    expect(loads.count).toBe(0);

    expect(await sending.governor.acquire('sms', Date.now() + 1_000)).toBe(true);
    expect(loads.count).toBe(1);
    const outcome = await sending.providers.sms.send(sms('a'.repeat(64)), new AbortController().signal);
    expect(outcome.kind).toBe('sent');
    expect(await sending.providers.email.lookup?.('a'.repeat(64))).toBe('sent');
    expect(await sending.providers.push.lookup?.('b'.repeat(64))).toBe('not-sent');
    expect(loads.count).toBe(1);
    expect((await readOutbox(outboxFile)).map((line) => line.key)).toEqual(['a'.repeat(64)]);
  });

  it('a provider that cannot be asked (SES, SNS) gives no evidence, as when no look-up is made', async () => {
    // Loading the AWS edge reads the SES account once: a closed loopback port refuses it (nothing leaves the machine).
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:9');
    const { config } = outboxConfig();
    const delivery = { mode: 'aws', emailFrom: 'orders@shop.example', sesConfigurationSet: undefined, smsSenderId: undefined, smsOriginationNumber: undefined, sms: { provider: 'sns' } } as const;
    const sending = onDemandSending({ ...config, delivery }, silentLog);
    expect(await sending.providers.email.lookup?.('c'.repeat(64))).toBe('none');
    expect(await sending.providers.sms.lookup?.('c'.repeat(64))).toBe('none');
    vi.unstubAllEnvs();
  });

  it('a throttling answer reaches the loaded edge’s governor (a bulk lane gives way through it)', async () => {
    loads.throttled = [];
    const { config } = outboxConfig({ SEND_RATE_SMS_PER_SECOND: '10' });
    const sending = onDemandSending(config, silentLog);
    expect(await sending.governor.acquire('sms', Date.now() + 1_000)).toBe(true);
    sending.governor.throttled('sms');
    await vi.waitFor(() => expect(loads.throttled).toEqual(['sms']));
  });
});

describe('what the reclaimer knows of its SMS provider before loading it', () => {
  it('through End User Messaging its texts have keyed evidence and a time to live, as the loaded provider says (the wrapper dropped timeToLive)', () => {
    const config = loadSenderConfig({
      LEDGER_TABLE_NAME: 'ledger',
      FUNCTION_TIMEOUT_SECONDS: '30',
      CLAIM_TIMEOUT_SECONDS: '120',
      EMAIL_FROM: 'a@b.co',
      SMS_PROVIDER: 'end-user-messaging',
      SMS_CONFIGURATION_SET: 'notifier-sms',
      DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
    });
    const { providers } = onDemandSending(config, silentLog);
    expect(providers.sms.keyedEvidence).toBe(true);
    expect(providers.sms.timeToLive).toBe(true);
    expect(providers.push.timeToLive).toBeUndefined();
    expect(providers.email.timeToLive).toBeUndefined();
  });
});
