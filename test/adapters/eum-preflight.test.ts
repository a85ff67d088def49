import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eumSmsProvider } from '../../functions/adapters/eum-sms-provider';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { startLocalEum, type LocalEum } from '../../local/aws/local-eum';
import { startWireFaultProxy, type WireFaultProxy } from '../../local/aws/wire-fault-proxy';

const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const REQUEST: ProviderRequest = {
  key: 'e'.repeat(64),
  message: { channel: 'sms', to: '+14155550101', text: 'Your code is 482913' },
  messageClass: 'otp',
  smsType: 'Transactional',
  push: DEFAULT_PUSH_POLICY,
  templateId: 'login-code',
  claimVersion: 1,
};

let eum: LocalEum;
let proxy: WireFaultProxy;
const clients: { destroy(): void }[] = [];
beforeAll(async () => {
  eum = await startLocalEum();
  proxy = await startWireFaultProxy({ service: 'sms-voice', target: eum.endpoint });
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await proxy.stop();
  await eum.stop();
});
beforeEach(() => proxy.setDecider(() => undefined));

/** The End User Messaging provider over a real client built as production builds it; `prepare` may add a middleware. */
async function sendOnce(config: Partial<ConstructorParameters<typeof PinpointSMSVoiceV2Client>[0]> = {}, prepare?: (client: PinpointSMSVoiceV2Client) => void) {
  const client = new PinpointSMSVoiceV2Client({ ...sendClientConfig(2_000), region: 'us-east-1', credentials: CREDENTIALS, endpoint: proxy.endpoint, ...config });
  clients.push(client);
  prepare?.(client);
  const before = proxy.requests.length;
  const outcome = await eumSmsProvider(client, { configurationSetName: 'notifier-sms' }).send(REQUEST, AbortSignal.timeout(2_000));
  return { outcome, requests: proxy.requests.length - before };
}

interface TestStack {
  add(middleware: () => () => Promise<never>, options: { step: 'initialize' | 'build' | 'finalizeRequest'; name: string }): void;
}

describe('End User Messaging: a failure before the request is handed to the HTTP handler is never an unknown outcome', () => {
  it('sends through the same client when nothing fails (the rig is sound)', async () => {
    expect(await sendOnce()).toMatchObject({ outcome: { kind: 'sent' }, requests: 1 });
  });

  it.each(['initialize', 'build', 'finalizeRequest'] as const)('a middleware that throws at the %s step: a configuration fault, not sent, no request', async (step) => {
    const { outcome, requests } = await sendOnce({}, (client) =>
      (client.middlewareStack as unknown as TestStack).add(
        () => async () => {
          throw Object.assign(new Error(`refused at ${step}`), { name: 'InjectedPreflightError' });
        },
        { step, name: `throwsAt-${step}` },
      ),
    );
    expect(outcome).toEqual({ kind: 'transient', cause: 'configuration', reason: `NotSent: InjectedPreflightError: refused at ${step}` });
    expect(requests).toBe(0);
  });

  it('credentials that cannot be loaded: a configuration fault, not sent, no request', async () => {
    const credentials = () => Promise.reject(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    const { outcome, requests } = await sendOnce({ credentials });
    expect(outcome).toEqual({ kind: 'transient', cause: 'configuration', reason: 'NotSent: CredentialsProviderError: Could not load credentials from any providers' });
    expect(requests).toBe(0);
  });

  it('an answer lost after the request left stays unknown (the markers do not make a sent text "not sent")', async () => {
    proxy.setDecider(() => ({ kind: 'lose-response' }));
    const { outcome, requests } = await sendOnce();
    expect(outcome.kind).toBe('ambiguous');
    expect(requests).toBe(1);
  });
});
