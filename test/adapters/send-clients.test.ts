import { SESv2Client } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it } from 'vitest';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

const request: ProviderRequest = {
  key: 'a'.repeat(64),
  message: { channel: 'email', to: 'buyer@example.com', subject: 'Hi', text: 'Hello' },
  messageClass: 'transactional',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'order-shipped',
};
const local = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function sesAt(endpoint: string, sendTimeoutMs: number) {
  return new SesEmailProvider(new SESv2Client({ ...sendClientConfig(sendTimeoutMs), ...local, endpoint }), {
    fromAddress: 'orders@shop.example',
  });
}

describe('send clients, over a real socket on loopback', () => {
  it('do not retry: a 500 reaches the server once and is classified ambiguous', async () => {
    server = await startLoopbackServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalFailure' });
      res.end('{"message":"internal"}');
    });
    const outcome = await sesAt(server.endpoint, 2_000).send(request, AbortSignal.timeout(2_000));
    expect(outcome.kind).toBe('ambiguous');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.url).toBe('/v2/email/outbound-emails');
  });

  it('(why it matters) a client with the SDK default retry strategy sends the same email three times', async () => {
    server = await startLoopbackServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalFailure' });
      res.end('{"message":"internal"}');
    });
    const defaultClient = new SESv2Client({ ...local, endpoint: server.endpoint });
    const outcome = await new SesEmailProvider(defaultClient, { fromAddress: 'orders@shop.example' }).send(
      request,
      AbortSignal.timeout(10_000),
    );
    expect(outcome.kind).toBe('ambiguous');
    expect(server.requests).toHaveLength(3);
  });

  it('a throttled call (429) is transient: certainly not sent, and not retried by the SDK', async () => {
    server = await startLoopbackServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
      res.end('{"message":"slow down"}');
    });
    const outcome = await sesAt(server.endpoint, 2_000).send(request, AbortSignal.timeout(2_000));
    expect(outcome).toMatchObject({ kind: 'transient', reason: expect.stringMatching(/^TooManyRequestsException/) });
    expect(server.requests).toHaveLength(1);
  });

  it('a hung call is aborted at the send timeout and classified ambiguous (the request had left)', async () => {
    server = await startLoopbackServer(() => {
      // Never answers.
    });
    const outcome = await sesAt(server.endpoint, 300).send(request, AbortSignal.timeout(300));
    expect(outcome.kind).toBe('ambiguous');
    expect(server.requests).toHaveLength(1);
  });

  it('the client-level request timeout alone also aborts a hung call (throwOnRequestTimeout)', async () => {
    server = await startLoopbackServer(() => {
      // Never answers.
    });
    const outcome = await sesAt(server.endpoint, 300).send(request, new AbortController().signal);
    expect(outcome).toMatchObject({ kind: 'ambiguous', reason: expect.stringMatching(/TimeoutError/) });
  });

  it('a refused connection is transient: nothing was sent', async () => {
    server = await startLoopbackServer(() => undefined);
    const endpoint = server.endpoint;
    await server.close();
    server = undefined;
    const outcome = await sesAt(endpoint, 1_000).send(request, AbortSignal.timeout(1_000));
    expect(outcome).toMatchObject({ kind: 'transient', reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('send clients are configured with a single attempt', async () => {
    const client = new SESv2Client({ ...sendClientConfig(1_000), ...local });
    expect(await client.config.maxAttempts()).toBe(1);
  });
});
