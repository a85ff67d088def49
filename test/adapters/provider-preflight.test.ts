import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { trackCallProgress } from '../../functions/adapters/sdk-call-progress';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SNS_ERROR_RULES, SnsProvider } from '../../functions/adapters/sns-provider';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { classifyProviderError } from '../../functions/core/provider/provider-outcome';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';
import type { ProviderRequest, RenderedMessage } from '../../functions/core/templates/rendered-message';
import { startLocalSes, type LocalSes } from '../../local/aws/local-ses';
import { startLocalSns, type LocalSns } from '../../local/aws/local-sns-server';
import { startWireFaultProxy, type WireFaultProxy } from '../../local/aws/wire-fault-proxy';

// The real SES v2 and SNS clients, with the production send settings, over HTTP to the local services through
// a proxy that sees every request. Each case makes the real SDK stop at one point of its middleware stack.

const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const ARN = 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab';
const MESSAGES = {
  email: { channel: 'email', to: 'buyer@example.com', subject: 'Order 1001', text: 'On its way' },
  sms: { channel: 'sms', to: '+14155550101', text: 'Order 1001 is on its way' },
  push: { channel: 'push', to: ARN, title: 'Order shipped', text: 'Order 1001 is on its way' },
} as const satisfies Record<RenderedMessage['channel'], RenderedMessage>;
const CHANNELS = Object.keys(MESSAGES) as RenderedMessage['channel'][];

const requestOf = (message: RenderedMessage): ProviderRequest => ({
  key: 'a'.repeat(64),
  message,
  messageClass: 'transactional',
  smsType: 'Transactional',
  push: DEFAULT_PUSH_POLICY,
  templateId: 'order-shipped',
  claimVersion: 1,
});

let ses: LocalSes;
let sns: LocalSns;
let sesProxy: WireFaultProxy;
let snsProxy: WireFaultProxy;
const clients: { destroy(): void }[] = [];
beforeAll(async () => {
  [ses, sns] = await Promise.all([startLocalSes(), startLocalSns()]);
  [sesProxy, snsProxy] = await Promise.all([
    startWireFaultProxy({ service: 'sesv2', target: ses.endpoint }),
    startWireFaultProxy({ service: 'sns', target: sns.endpoint }),
  ]);
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await Promise.all([sesProxy.stop(), snsProxy.stop()]);
  await Promise.all([ses.stop(), sns.stop()]);
});
beforeEach(() => {
  sesProxy.setDecider(() => undefined);
  snsProxy.setDecider(() => undefined);
});

type ClientConfig = Partial<ConstructorParameters<typeof SNSClient>[0] & ConstructorParameters<typeof SESv2Client>[0]>;

/** The channel's provider over real clients built as production builds them; `config` overrides, `prepare` may add a middleware. */
function providerFor(channel: RenderedMessage['channel'], config: ClientConfig = {}, prepare?: (client: SESv2Client | SNSClient) => void) {
  const base = { ...sendClientConfig(2_000), region: 'us-east-1', credentials: CREDENTIALS };
  if (channel === 'email') {
    const client = new SESv2Client({ ...base, endpoint: sesProxy.endpoint, ...config });
    clients.push(client);
    prepare?.(client);
    return { provider: new SesEmailProvider(client, { fromAddress: 'orders@shop.example' }) as DeliveryProvider, proxy: sesProxy, client: undefined };
  }
  const client = new SNSClient({ ...base, endpoint: snsProxy.endpoint, ...config });
  clients.push(client);
  prepare?.(client);
  return { provider: new SnsProvider(client) as DeliveryProvider, proxy: snsProxy, client };
}

/** Sends the channel's message and reports the outcome and how many requests reached the proxy. */
async function sendOnce(channel: RenderedMessage['channel'], config: ClientConfig = {}, prepare?: (client: SESv2Client | SNSClient) => void) {
  const { provider, proxy } = providerFor(channel, config, prepare);
  const before = proxy.requests.length;
  const outcome = await provider.send(requestOf(MESSAGES[channel]), AbortSignal.timeout(2_000));
  return { outcome, requests: proxy.requests.length - before };
}

/** The client's stack as a plain middleware stack: the tests add middlewares that only throw. */
interface TestStack {
  add(middleware: () => () => Promise<never>, options: { step: 'initialize' | 'build' | 'finalizeRequest'; name: string }): void;
  addRelativeTo(middleware: () => () => Promise<never>, options: { relation: 'after'; toMiddleware: string; name: string }): void;
}
const stackOf = (client: SESv2Client | SNSClient) => client.middlewareStack as unknown as TestStack;

/** A middleware that throws at `step`, as a failing credential, signer or plugin would. */
function throwingAt(step: 'initialize' | 'build' | 'finalizeRequest') {
  return (client: SESv2Client | SNSClient) =>
    stackOf(client).add(
      () => async () => {
        throw Object.assign(new Error(`refused at ${step}`), { name: 'InjectedPreflightError' });
      },
      { step, name: `throwsAt-${step}` },
    );
}

describe('through the real clients, a failure before the request is handed to the HTTP handler is never an unknown outcome', () => {
  it("SNS: the real URIError of a lone surrogate in the query serializer, seen by the markers, is the message's own content: permanent, no request", async () => {
    const { client, proxy } = providerFor('sms');
    const command = new PublishCommand({ PhoneNumber: MESSAGES.sms.to, Message: 'Order 1001 \ud83d' });
    const progress = trackCallProgress(command);
    const before = proxy.requests.length;
    const error = await client!.send(command, { abortSignal: AbortSignal.timeout(2_000) }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(URIError);
    expect(classifyProviderError(error, SNS_ERROR_RULES, progress())).toEqual({ kind: 'permanent', reason: 'NotSent: URIError: URI malformed' });
    expect(proxy.requests.length - before).toBe(0);
  });

  it.each([
    ['sms', { ...MESSAGES.sms, text: 'Order 1001 \ud83d' }, 'NotSent: the sms text is not well-formed Unicode'],
    ['push', { ...MESSAGES.push, title: '\udc00 shipped' }, 'NotSent: the push title is not well-formed Unicode'],
  ] as const)('the SNS provider refuses ill-formed %s text before its client sees it: permanent, no request, and the next request is whole', async (_channel, message, reason) => {
    const { provider, proxy } = providerFor('sms');
    const before = proxy.requests.length;
    expect(await provider.send(requestOf(message), AbortSignal.timeout(2_000))).toEqual({ kind: 'permanent', reason });
    expect(proxy.requests.length - before).toBe(0);
    expect(await provider.send(requestOf(MESSAGES.push), AbortSignal.timeout(2_000))).toMatchObject({ kind: 'sent' });
    expect(proxy.requests.at(-1)?.body).toMatch(/^Action=Publish&Version=2010-03-31&Message=%7B/);
  });

  it.each(CHANNELS.flatMap((channel) => (['initialize', 'build', 'finalizeRequest'] as const).map((step) => ({ channel, step }))))(
    '$channel: a middleware that throws at the $step step is the environment\'s: a configuration fault, not sent, no request',
    async ({ channel, step }) => {
      const { outcome, requests } = await sendOnce(channel, {}, throwingAt(step));
      expect(outcome).toEqual({ kind: 'transient', cause: 'configuration', reason: `NotSent: InjectedPreflightError: refused at ${step}` });
      expect(requests).toBe(0);
    },
  );

  it.each(CHANNELS)('%s: credentials that cannot be loaded: a configuration fault, not sent, no request', async (channel) => {
    const credentials = () => Promise.reject(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    const { outcome, requests } = await sendOnce(channel, { credentials });
    expect(outcome).toEqual({ kind: 'transient', cause: 'configuration', reason: 'NotSent: CredentialsProviderError: Could not load credentials from any providers' });
    expect(requests).toBe(0);
  });

  it.each(CHANNELS)('%s: an endpoint the SDK cannot resolve (FIPS with a custom endpoint): a configuration fault, not sent, no request', async (channel) => {
    const { outcome, requests } = await sendOnce(channel, { useFipsEndpoint: true });
    expect(outcome).toMatchObject({ kind: 'transient', cause: 'configuration', reason: 'NotSent: EndpointError: Invalid Configuration: FIPS and custom endpoint are not supported' });
    expect(requests).toBe(0);
  });

  it.each(CHANNELS)('%s: a failure while the request is built from the message (at the serializer\'s step) is permanent, and no request left', async (channel) => {
    // SES's JSON serializer has no content it refuses; a middleware in the serializer's place stands in for one.
    const atSerializer = (client: SESv2Client | SNSClient) =>
      stackOf(client).addRelativeTo(
        () => async () => {
          throw new TypeError('cannot serialize this input');
        },
        { relation: 'after', toMiddleware: 'endpointV2Middleware', name: 'serializerFails' },
      );
    const { outcome, requests } = await sendOnce(channel, {}, atSerializer);
    expect(outcome).toEqual({ kind: 'permanent', reason: 'NotSent: TypeError: cannot serialize this input' });
    expect(requests).toBe(0);
  });

  it.each(CHANNELS)('%s: once the HTTP handler has the request, it may have left: a reset is an unknown outcome, unanswered', async (channel) => {
    const { proxy } = providerFor(channel);
    proxy.setDecider(() => ({ kind: 'reset-before' }));
    const { outcome, requests } = await sendOnce(channel);
    expect(outcome).toMatchObject({ kind: 'ambiguous', unanswered: 'ECONNRESET' });
    expect(requests).toBe(1);
  });

  it.each(CHANNELS)('%s: a request handler that throws the moment it is called is "may have left" too: the marker fires before handle()', async (channel) => {
    const requestHandler = {
      handle: () => Promise.reject(Object.assign(new Error('write after handle() was entered'), { code: 'EPIPE' })),
    };
    const { outcome } = await sendOnce(channel, { requestHandler });
    expect(outcome).toMatchObject({ kind: 'ambiguous', unanswered: 'EPIPE' });
  });

  it.each(CHANNELS)('%s: a healthy call is sent (the markers change nothing on the way)', async (channel) => {
    const { outcome, requests } = await sendOnce(channel);
    expect(outcome).toMatchObject({ kind: 'sent' });
    expect(requests).toBe(1);
  });
});

describe('where the markers sit in the SDK', () => {
  /** What `Client.send` does before it runs a call: the command's middleware resolved, then joined to the client's. */
  interface Resolvable {
    readonly middlewareStack: { concat(other: unknown): { identify(): string[] } };
    resolveMiddleware(stack: unknown, config: unknown, options: unknown): unknown;
  }
  it.each([
    ['SES SendEmail', new SESv2Client({ region: 'us-east-1', credentials: CREDENTIALS }), () => new SendEmailCommand({ Content: {} })],
    ['SNS Publish', new SNSClient({ region: 'us-east-1', credentials: CREDENTIALS }), () => new PublishCommand({ Message: 'x' })],
  ] as const)('%s: after the endpoint, around the serializer, and last of all, right before the request handler', (_name, client, newCommand) => {
    const command = newCommand();
    trackCallProgress(command);
    (command as unknown as Resolvable).resolveMiddleware(client.middlewareStack, client.config, {});
    const clientStack = client.middlewareStack as unknown as Resolvable['middlewareStack'];
    const order = clientStack.concat(command.middlewareStack).identify().map((entry) => entry.split(' - ')[0]);
    expect(order[0]).toBe('notifierCallStarted');
    expect(order.slice(order.indexOf('endpointV2Middleware'), order.indexOf('endpointV2Middleware') + 4)).toEqual([
      'endpointV2Middleware',
      'notifierSerializing',
      'serializerMiddleware',
      'notifierSerialized',
    ]);
    expect(order.at(-2)).toBe('deserializerMiddleware');
    expect(order.at(-1)).toBe('notifierHandedOver');
    client.destroy();
  });
});

describe("the SDK's query serializer after it throws (why the SNS provider keeps ill-formed text from it)", () => {
  it("keeps the refused request's partial body and writes it into the next request on that client", async () => {
    const { client, proxy } = providerFor('sms');
    await client!.send(new PublishCommand({ PhoneNumber: MESSAGES.sms.to, Message: 'Order 1001 \ud83d' })).catch(() => undefined);
    const next = await new SnsProvider(client!).send(requestOf(MESSAGES.push), AbortSignal.timeout(2_000));
    // The push's body starts with the SMS's `Message=` it never finished: SNS takes the first, an empty message.
    expect(proxy.requests.at(-1)?.body).toMatch(/^Action=Publish&Version=2010-03-31&Message=&Message=/);
    expect(next).toEqual({ kind: 'permanent', reason: 'InvalidParameterException: Invalid parameter: Empty message' });
  });
});
