import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it } from 'vitest';
import { SNS_KEY_ATTRIBUTE, SnsProvider } from '../../functions/adapters/sns-provider';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { startLocalSns, type LocalSns, type LocalSnsOptions } from '../../local/aws/local-sns-server';

let sns: LocalSns | undefined;
afterEach(async () => {
  await sns?.stop();
  sns = undefined;
});

async function start(options: LocalSnsOptions = {}): Promise<{ sns: LocalSns; client: SNSClient }> {
  sns = await startLocalSns(options);
  return { sns, client: new SNSClient({ endpoint: sns.endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 }) };
}

const ENDPOINT = 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

const sms = (key: string, to = '+447700900117'): ProviderRequest => ({
  key,
  message: { channel: 'sms', to, text: 'Your code is 123456' },
  messageClass: 'otp',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'login-code',
});
const push = (key: string): ProviderRequest => ({
  key,
  message: { channel: 'push', to: ENDPOINT, title: 'Shipped', text: 'Your order is on its way' },
  messageClass: 'transactional',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'order-shipped',
});

const publishSms = (key: string) =>
  new PublishCommand({ PhoneNumber: '+15550100', Message: 'hi', MessageAttributes: { [SNS_KEY_ATTRIBUTE]: { DataType: 'String', StringValue: key } } });

async function errorOf(promise: Promise<unknown>): Promise<{ name: string; status: number | undefined; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { name: string; message: string; $metadata?: { httpStatusCode?: number } },
  );
  if (!error) throw new Error('expected the call to fail');
  return { name: error.name, status: error.$metadata?.httpStatusCode, message: error.message };
}

describe('local SNS server (query protocol, Publish to a phone number and to a platform endpoint)', () => {
  it('accepts the real SnsProvider SMS and push publishes and counts them by the key attribute', async () => {
    const { sns, client } = await start();
    const provider = new SnsProvider(client, { smsSenderId: 'SHOP' });
    const signal = new AbortController().signal;

    const sent = await provider.send(sms('key-sms'), signal);
    await provider.send(push('key-push'), signal);
    await provider.send(sms('key-sms'), signal);

    expect(sent).toMatchObject({ kind: 'sent' });
    expect([...sns.acceptedPerKey()]).toEqual([
      ['key-sms', 2],
      ['key-push', 1],
    ]);
    expect(sns.accepted()[0]).toMatchObject({
      channel: 'sms',
      target: '+447700900117',
      message: 'Your code is 123456',
      attributes: { 'AWS.SNS.SMS.SMSType': 'Transactional', 'AWS.SNS.SMS.SenderID': 'SHOP' },
    });
    expect(sns.accepted()[1]).toMatchObject({ channel: 'push', target: ENDPOINT, messageStructure: 'json' });
    expect(sns.accepted()[0]?.messageId).toBe(sent.kind === 'sent' ? sent.providerMessageId : '');
  });

  it("refuses what SNS refuses, in SNS's shapes: a number that is not E.164, a JSON body without default, a disabled endpoint", async () => {
    const { sns, client } = await start({ disabledEndpoints: [ENDPOINT] });
    expect(await errorOf(client.send(new PublishCommand({ PhoneNumber: '07700900117', Message: 'hi' })))).toMatchObject({
      name: 'InvalidParameterException',
      status: 400,
    });
    expect(await errorOf(client.send(new PublishCommand({ TargetArn: ENDPOINT.replace('GCM', 'APNS'), MessageStructure: 'json', Message: '{"GCM":"x"}' })))).toEqual({
      name: 'InvalidParameterException',
      status: 400,
      message: 'Invalid parameter: Message Structure - No default entry in JSON message body',
    });
    expect(await errorOf(client.send(new PublishCommand({ TargetArn: ENDPOINT, Message: 'hi' })))).toMatchObject({ name: 'EndpointDisabledException', status: 400 });
    expect(sns.accepted()).toEqual([]);
  });

  it("throttles above the rate with the common ThrottlingException (HTTP 400) by default: Publish's model has no throttling error of its own", async () => {
    const { sns, client } = await start({ limits: { maxPerSecond: 1 } });
    await client.send(publishSms('k1'));
    expect(await errorOf(client.send(publishSms('k2')))).toEqual({ name: 'ThrottlingException', status: 400, message: 'Rate exceeded' });
    expect(sns.accepted()).toHaveLength(1);
  });

  it('throttles with HTTP 400 Throttling "Rate exceeded" when asked, and above the daily quota too', async () => {
    const { client } = await start({ limits: { dailyQuota: 1 }, throttlingError: 'Throttling' });
    await client.send(publishSms('k1'));
    expect(await errorOf(client.send(publishSms('k2')))).toEqual({ name: 'Throttling', status: 400, message: 'Rate exceeded' });
  });

  it('shows pushes as the device would: one entry per collapse id, marked replaced when a second one arrived', async () => {
    const { sns, client } = await start();
    const provider = new SnsProvider(client);
    const signal = new AbortController().signal;
    await provider.send(push('key-resent'), signal);
    await provider.send(push('key-resent'), signal);
    await provider.send(push('key-once'), signal);
    const html = await (await fetch(sns.outboxUrl)).text();
    expect(html).toContain('Push, as the devices show it (2 notifications from 3 pushes)');
    const rows = [...html.matchAll(/<tr class="(replaced|shown)">(.*?)<\/tr>/g)].map((m) => [m[1], m[2]]);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.[0]).toBe('replaced');
    expect(rows[0]?.[1]).toContain('<td>key-resent</td>');
    expect(rows[0]?.[1]).toContain('replaced: 2 deliveries shown as one');
    expect(rows[1]?.[0]).toBe('shown');
    expect(rows[1]?.[1]).toContain('<td>key-once</td>');
  });

  it('serves a page listing what was published', async () => {
    const { sns, client } = await start();
    await client.send(publishSms('k-page'));
    const html = await (await fetch(sns.outboxUrl)).text();
    expect(html).toContain('k-page');
    expect(html).toContain('+15550100');
  });
});
