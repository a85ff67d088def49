import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

const db = useTestLedger();

/** The send timeout under test, and a client request timeout far beyond it: only the abort signal can end the call in time. */
const SEND_TIMEOUT_MS = 300;
const CLIENT_REQUEST_TIMEOUT_MS = 30_000;
/** Generous for a loaded machine, and still two orders of magnitude below the client's own timeout. */
const ENDED_WITHIN_MS = 3_000;
const local = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

/** A provider endpoint that never answers: a call ends only when the caller aborts it. Records each connection's close. */
interface SilentProvider {
  readonly server: LoopbackServer;
  readonly closedAt: number[];
}

let silent: SilentProvider | undefined;
afterEach(async () => {
  await silent?.server.close();
  silent = undefined;
});

async function startSilentProvider(): Promise<SilentProvider> {
  const closedAt: number[] = [];
  const server = await startLoopbackServer((_req, res) => {
    res.on('close', () => closedAt.push(performance.now()));
  });
  return { server, closedAt };
}

function sesAt(endpoint: string): SesEmailProvider {
  const client = new SESv2Client({ ...sendClientConfig(CLIENT_REQUEST_TIMEOUT_MS), ...local, endpoint });
  return new SesEmailProvider(client, { fromAddress: 'orders@shop.example' });
}

function snsAt(endpoint: string): SnsProvider {
  return new SnsProvider(new SNSClient({ ...sendClientConfig(CLIENT_REQUEST_TIMEOUT_MS), ...local, endpoint }));
}

/** Resolves with the call's result and how long it took, or 'still running' once `ENDED_WITHIN_MS` has passed. */
async function timed<T>(call: () => Promise<T>): Promise<{ result: T | 'still running'; elapsedMs: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ENDED_WITHIN_MS);
  });
  try {
    const result = await Promise.race([call(), deadline]);
    return { result, elapsedMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const emailRequest: ProviderRequest = {
  key: 'a'.repeat(64),
  message: { channel: 'email', to: 'buyer@example.com', subject: 'Hi', text: 'Hello' },
  messageClass: 'transactional',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'order-shipped',
};
const smsRequest: ProviderRequest = {
  key: 'b'.repeat(64),
  message: { channel: 'sms', to: '+14155550101', text: 'Your code is 482913' },
  messageClass: 'otp',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'login-code',
};

const PROVIDERS: { name: string; provider: (endpoint: string) => DeliveryProvider; request: ProviderRequest }[] = [
  { name: 'SES', provider: sesAt, request: emailRequest },
  { name: 'SNS', provider: snsAt, request: smsRequest },
];

describe('the abort signal reaches the provider SDK call', () => {
  it.each(PROVIDERS)('$name: a call the endpoint never answers ends when the signal fires, as ambiguous', async ({ provider, request }) => {
    silent = await startSilentProvider();
    const { result, elapsedMs } = await timed(() => provider(silent!.server.endpoint).send(request, AbortSignal.timeout(SEND_TIMEOUT_MS)));

    expect(result).not.toBe('still running');
    expect((result as DeliveryOutcome).kind).toBe('ambiguous');
    expect(elapsedMs).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS - 20);
    // The request had reached the endpoint, and the abort closed its connection.
    expect(silent.server.requests).toHaveLength(1);
    await vi.waitFor(() => expect(silent!.closedAt).toHaveLength(1), { timeout: 1_000 });
  });
});

describe('a delivery ends at the send timeout when the provider never answers', () => {
  const cases = [
    {
      name: 'SES',
      event: orderShippedEvent({
        eventId: 'evt-abort-ses',
        recipients: [{ recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] }],
      }),
      key: idempotencyKey({ eventId: 'evt-abort-ses', recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' }),
    },
    {
      name: 'SNS',
      event: loginCodeEvent({ eventId: 'evt-abort-sns' }),
      key: idempotencyKey({ eventId: 'evt-abort-sns', recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }),
    },
  ];

  it.each(cases)('$name: the record is handed back, ambiguous, well before the client would give up', async ({ event, key }) => {
    silent = await startSilentProvider();
    const ses = sesAt(silent.server.endpoint);
    const sns = snsAt(silent.server.endpoint);
    const harness = new SenderHarness({ ledger: db.ledger, providers: { email: ses, sms: sns, push: sns }, sendTimeoutMs: SEND_TIMEOUT_MS });
    const record = sqsRecord(JSON.stringify(event));

    const { result } = await timed(() => harness.invoke(record));

    expect(result).not.toBe('still running');
    expect(failedIds(result as Awaited<ReturnType<SenderHarness['invoke']>>)).toEqual([record.messageId]);
    await vi.waitFor(() => expect(silent!.closedAt).toHaveLength(1), { timeout: 1_000 });
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous' });
  });
});
