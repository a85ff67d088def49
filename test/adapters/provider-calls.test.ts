import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import type { RenderedMessage, ProviderRequest } from '../../functions/core/templates/rendered-message';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

/**
 * One provider call each, against a mocked SDK client: no ledger, no socket. What the adapters put in
 * the request, which signal they hand the SDK, and what they make of the answer. The same requests
 * through the whole sender are in provider-requests.test.ts.
 */
const ses = new SESv2Client({ region: 'us-east-1' });
const sns = new SNSClient({ region: 'us-east-1' });
const sesMock = mockClient(ses);
const snsMock = mockClient(sns);
beforeEach(() => {
  sesMock.reset();
  snsMock.reset();
});

const KEY = 'k'.repeat(64);
const EMAIL: RenderedMessage = { channel: 'email', to: 'buyer@example.com', subject: 'Shipped', text: 'On its way' };
const SMS: RenderedMessage = { channel: 'sms', to: '+14155550101', text: 'Your code is 482913' };
const PUSH: RenderedMessage = { channel: 'push', to: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/1', title: 'Shipped', text: 'On its way' };

function request(message: RenderedMessage, overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return { key: KEY, message, messageClass: 'transactional', smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, templateId: 'order-shipped', claimVersion: 1, ...overrides };
}

/** The second argument the adapter passed to the SDK client's `send` (where the abort signal travels). */
function sendOptionsOf(call: { args: readonly unknown[] }): unknown {
  return call.args[1];
}

const sesProvider = () => new SesEmailProvider(ses, { fromAddress: 'orders@shop.example' });

describe('SES e-mail adapter', () => {
  it.each([SMS, PUSH])('refuses a $channel message as permanent without calling SES', async (message) => {
    expect(await sesProvider().send(request(message), new AbortController().signal)).toEqual({
      kind: 'permanent',
      reason: `SES cannot send ${message.channel}`,
    });
    expect(sesMock.calls()).toHaveLength(0);
  });

  it('hands the caller’s abort signal to the SDK call', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    const signal = new AbortController().signal;
    await sesProvider().send(request(EMAIL), signal);
    expect(sendOptionsOf(sesMock.commandCalls(SendEmailCommand)[0]!)).toEqual({ abortSignal: signal });
  });

  it('sends text only when there is no HTML, and both parts when there is', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    await sesProvider().send(request(EMAIL), new AbortController().signal);
    await sesProvider().send(request({ ...EMAIL, html: '<p>On its way</p>' }), new AbortController().signal);
    const bodies = sesMock.commandCalls(SendEmailCommand).map((call) => call.args[0].input.Content?.Simple?.Body);
    expect(bodies).toEqual([
      { Text: { Data: 'On its way', Charset: 'UTF-8' } },
      { Text: { Data: 'On its way', Charset: 'UTF-8' }, Html: { Data: '<p>On its way</p>', Charset: 'UTF-8' } },
    ]);
  });

  it.each([
    ['kept when SES allows every character', 'Promo_2026.winter-sale@shop', 'Promo_2026.winter-sale@shop'],
    ['other characters become _', 'promo/winter sale!', 'promo_winter_sale_'],
    ['cut at 256 characters', 'x'.repeat(300), 'x'.repeat(256)],
    ['never empty', '', '_'],
  ])('tag values (message class, template): %s', async (_what, value, tag) => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    await sesProvider().send(request(EMAIL, { messageClass: value, templateId: value }), new AbortController().signal);
    expect(sesMock.commandCalls(SendEmailCommand)[0]!.args[0].input.EmailTags).toEqual([
      { Name: 'idempotency-key', Value: KEY },
      { Name: 'claim-version', Value: '1' },
      { Name: 'message-class', Value: tag },
      { Name: 'template', Value: tag },
    ]);
  });

  it('an answer with a MessageId is sent; one without is ambiguous (it may have been accepted)', async () => {
    sesMock.on(SendEmailCommand).resolvesOnce({ MessageId: 'ses-1' }).resolvesOnce({});
    const signal = new AbortController().signal;
    expect(await sesProvider().send(request(EMAIL), signal)).toEqual({ kind: 'sent', providerMessageId: 'ses-1' });
    expect(await sesProvider().send(request(EMAIL), signal)).toEqual({
      kind: 'ambiguous',
      reason: 'SES accepted the call but returned no MessageId',
    });
  });
});

describe('SNS SMS and push adapter', () => {
  it('refuses an e-mail message as permanent without calling SNS', async () => {
    expect(await new SnsProvider(sns).send(request(EMAIL), new AbortController().signal)).toEqual({
      kind: 'permanent',
      reason: 'SNS cannot send email',
    });
    expect(snsMock.calls()).toHaveLength(0);
  });

  it.each([SMS, PUSH])('hands the caller’s abort signal to the SDK call ($channel)', async (message) => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const signal = new AbortController().signal;
    await new SnsProvider(sns).send(request(message), signal);
    expect(sendOptionsOf(snsMock.commandCalls(PublishCommand)[0]!)).toEqual({ abortSignal: signal });
  });

  it('an SMS carries the key and the SMS type, and no sender id or origination number unless configured', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    await new SnsProvider(sns).send(request(SMS, { smsType: 'Promotional' }), new AbortController().signal);
    expect(snsMock.commandCalls(PublishCommand)[0]!.args[0].input).toEqual({
      PhoneNumber: '+14155550101',
      Message: 'Your code is 482913',
      MessageAttributes: {
        'notifier.idempotency-key': { DataType: 'String', StringValue: KEY },
        'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Promotional' },
      },
    });
  });

  it('an SMS carries the configured sender id and origination number', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const provider = new SnsProvider(sns, { smsSenderId: 'SHOP', smsOriginationNumber: '+15550100999' });
    await provider.send(request(SMS), new AbortController().signal);
    expect(snsMock.commandCalls(PublishCommand)[0]!.args[0].input.MessageAttributes).toEqual({
      'notifier.idempotency-key': { DataType: 'String', StringValue: KEY },
      'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
      'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'SHOP' },
      'AWS.MM.SMS.OriginationNumber': { DataType: 'String', StringValue: '+15550100999' },
    });
  });

  it('a push goes to the endpoint as per-platform JSON carrying the key, with the key as APNs collapse id and FCM tag and the class lifetime', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    await new SnsProvider(sns).send(request(PUSH), new AbortController().signal);
    const input = snsMock.commandCalls(PublishCommand)[0]!.args[0].input;
    const notification = { title: 'Shipped', body: 'On its way' };
    const fcm = {
      notification,
      data: { idempotencyKey: KEY },
      android: { priority: 'high', notification: { tag: KEY } },
      apns: { headers: { 'apns-collapse-id': KEY, 'apns-priority': '10' } },
    };
    const attribute = (value: string) => ({ DataType: 'String', StringValue: value });
    expect({ ...input, Message: JSON.parse(input.Message ?? 'null') as unknown }).toEqual({
      TargetArn: PUSH.to,
      MessageStructure: 'json',
      Message: {
        default: 'On its way',
        GCM: JSON.stringify({ fcmV1Message: { message: fcm } }),
        APNS: JSON.stringify({ aps: { alert: notification }, idempotencyKey: KEY }),
        APNS_SANDBOX: JSON.stringify({ aps: { alert: notification }, idempotencyKey: KEY }),
      },
      MessageAttributes: {
        'notifier.idempotency-key': attribute(KEY),
        'AWS.SNS.MOBILE.APNS.COLLAPSE_ID': attribute(KEY),
        'AWS.SNS.MOBILE.APNS.PRIORITY': attribute('10'),
        'AWS.SNS.MOBILE.APNS.PUSH_TYPE': attribute('alert'),
        'AWS.SNS.MOBILE.APNS.TTL': attribute('259200'),
        'AWS.SNS.MOBILE.APNS_SANDBOX.TTL': attribute('259200'),
        'AWS.SNS.MOBILE.FCM.TTL': attribute('259200'),
      },
    });
  });

  it("a push's own validity outranks the class lifetime, and a normal-priority class asks APNs for 5 and FCM for normal", async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const push = { ...PUSH, validForSeconds: 300 } as RenderedMessage;
    await new SnsProvider(sns).send(request(push, { push: { lifetimeSeconds: 86_400, priority: 'normal' } }), new AbortController().signal);
    const input = snsMock.commandCalls(PublishCommand)[0]!.args[0].input;
    const values = Object.fromEntries(Object.entries(input.MessageAttributes ?? {}).map(([name, a]) => [name, a.StringValue]));
    expect(values).toMatchObject({
      'AWS.SNS.MOBILE.APNS.PRIORITY': '5',
      'AWS.SNS.MOBILE.APNS.TTL': '300',
      'AWS.SNS.MOBILE.APNS_SANDBOX.TTL': '300',
      'AWS.SNS.MOBILE.FCM.TTL': '300',
    });
    const gcm = JSON.parse((JSON.parse(input.Message ?? '') as { GCM: string }).GCM) as { fcmV1Message: { message: { android: unknown } } };
    expect(gcm.fcmV1Message.message.android).toEqual({ priority: 'normal', notification: { tag: KEY } });
  });

  it('an answer with a MessageId is sent; one without is ambiguous (it may have been accepted)', async () => {
    snsMock.on(PublishCommand).resolvesOnce({ MessageId: 'sns-1' }).resolvesOnce({});
    const signal = new AbortController().signal;
    expect(await new SnsProvider(sns).send(request(SMS), signal)).toEqual({ kind: 'sent', providerMessageId: 'sns-1' });
    expect(await new SnsProvider(sns).send(request(SMS), signal)).toEqual({
      kind: 'ambiguous',
      reason: 'SNS accepted the call but returned no MessageId',
    });
  });
});
