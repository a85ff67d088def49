import { SendEmailCommand, SESv2Client, SESv2ServiceException } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient, SNSServiceException } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

const ses = new SESv2Client({ region: 'us-east-1' });
const sns = new SNSClient({ region: 'us-east-1' });
const sesMock = mockClient(ses);
const snsMock = mockClient(sns);
beforeEach(() => {
  sesMock.reset();
  snsMock.reset();
});

function awsHarness() {
  const snsProvider = new SnsProvider(sns, { smsSenderId: 'SHOP' });
  return new SenderHarness({
    ledger: db.ledger,
    providers: {
      email: new SesEmailProvider(ses, { fromAddress: 'orders@shop.example', configurationSetName: 'notifier-events' }),
      sms: snsProvider,
      push: snsProvider,
    },
  });
}

function serviceError<T extends typeof SESv2ServiceException | typeof SNSServiceException>(
  Type: T,
  name: string,
  status: number,
  message = 'boom',
) {
  return new Type({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, message });
}

const keyOf = (eventId: string, recipientId: string, channel: 'email' | 'sms' | 'push', templateId: string) =>
  idempotencyKey({ eventId, recipientId, channel, templateId });

describe('the exact provider requests', () => {
  it('SES v2 SendEmail carries the key as a message tag and the configuration set', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const harness = awsHarness();
    const event = orderShippedEvent({ eventId: 'evt-exact-requests' });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);

    const emailCalls = sesMock.commandCalls(SendEmailCommand).map((c) => c.args[0].input);
    const buyerEmail = emailCalls.find((i) => i.Destination?.ToAddresses?.[0] === 'buyer@example.com');
    expect(buyerEmail).toEqual({
      FromEmailAddress: 'orders@shop.example',
      Destination: { ToAddresses: ['buyer@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: 'Your order 1001 has shipped', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Good news: order 1001 is on its way with DHL. Track it with JD0142.', Charset: 'UTF-8' } },
        },
      },
      EmailTags: [
        { Name: 'idempotency-key', Value: keyOf('evt-exact-requests', 'buyer-17', 'email', 'order-shipped') },
        // The first claim's version: an SES event about this e-mail names the attempt that sent it.
        { Name: 'claim-version', Value: '1' },
        { Name: 'message-class', Value: 'transactional' },
        { Name: 'template', Value: 'order-shipped' },
      ],
      ConfigurationSetName: 'notifier-events',
    });
    expect(emailCalls).toHaveLength(2);

    const publishes = snsMock.commandCalls(PublishCommand).map((c) => c.args[0].input);
    expect(publishes.find((p) => p.PhoneNumber)).toEqual({
      PhoneNumber: '+447700900123',
      Message: 'Order 1001 shipped with DHL, tracking JD0142.',
      MessageAttributes: {
        'notifier.idempotency-key': { DataType: 'String', StringValue: keyOf('evt-exact-requests', 'buyer-17', 'sms', 'order-shipped') },
        'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
        'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'SHOP' },
      },
    });
    const push = publishes.find((p) => p.TargetArn);
    expect(push).toMatchObject({ TargetArn: event.recipients[0]!.pushEndpointArn, MessageStructure: 'json' });
    const pushKey = keyOf('evt-exact-requests', 'buyer-17', 'push', 'order-shipped');
    const shown = { title: 'Order shipped', body: 'Order 1001 is on its way.' };
    const fcm = {
      notification: shown,
      data: { idempotencyKey: pushKey },
      android: { priority: 'high', notification: { tag: pushKey } },
      apns: { headers: { 'apns-collapse-id': pushKey, 'apns-priority': '10' } },
    };
    expect(JSON.parse(push!.Message!)).toEqual({
      default: 'Order 1001 is on its way.',
      GCM: JSON.stringify({ fcmV1Message: { message: fcm } }),
      APNS: JSON.stringify({ aps: { alert: { title: 'Order shipped', body: 'Order 1001 is on its way.' } }, idempotencyKey: pushKey }),
      APNS_SANDBOX: JSON.stringify({ aps: { alert: { title: 'Order shipped', body: 'Order 1001 is on its way.' } }, idempotencyKey: pushKey }),
    });
    expect((await db.ledger.get(keyOf('evt-exact-requests', 'seller-4', 'email', 'order-shipped')))?.providerMessageId).toBe('ses-1');
    // Only the SMS row enters the sparse SMS index; e-mail and push keep their id unindexed.
    const rows = await Promise.all(
      (['email', 'sms', 'push'] as const).map((channel) => db.ledger.get(keyOf('evt-exact-requests', 'buyer-17', channel, 'order-shipped'))),
    );
    expect(rows.map((row) => [row?.providerMessageId, row?.smsMessageId])).toEqual([
      ['ses-1', undefined],
      ['sns-1', 'sns-1'],
      ['sns-1', undefined],
    ]);
  });

  it('marketing SMS goes out as Promotional', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-2' });
    const harness = awsHarness();
    const event = loginCodeEvent({ eventId: 'evt-promo', messageClass: 'marketing' });
    await harness.invoke(sqsRecord(JSON.stringify(event)));
    expect(snsMock.commandCalls(PublishCommand)[0]!.args[0].input.MessageAttributes?.['AWS.SNS.SMS.SMSType']?.StringValue).toBe(
      'Promotional',
    );
  });
});

describe('each provider error class has its defined path', () => {
  it('SES MessageRejected for the content or recipient: FAILED with the reason (addresses redacted), acknowledged', async () => {
    sesMock
      .on(SendEmailCommand)
      .rejects(serviceError(SESv2ServiceException, 'MessageRejected', 400, 'Illegal address: buyer@example.com'));
    const harness = awsHarness();
    const event = orderShippedEvent({ eventId: 'evt-ses-rejected', recipients: [orderShippedEvent().recipients[1]!] });
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    const row = await db.ledger.get(keyOf('evt-ses-rejected', 'seller-4', 'email', 'order-shipped'));
    expect(row).toMatchObject({ state: 'FAILED', failureReason: 'MessageRejected: Illegal address: <email>' });
    expect(harness.metrics.get(METRIC.PermanentFailure)).toBe(1);
  });

  it.each([
    ['SES TooManyRequestsException', 'email', serviceError(SESv2ServiceException, 'TooManyRequestsException', 429)],
    ['SNS ThrottledException', 'sms', serviceError(SNSServiceException, 'ThrottledException', 400)],
    ['SNS Throttling (common error, HTTP 400)', 'sms', serviceError(SNSServiceException, 'Throttling', 400, 'Rate exceeded')],
    ['SNS ThrottlingException (HTTP 400)', 'sms', serviceError(SNSServiceException, 'ThrottlingException', 400, 'Rate exceeded')],
    ['SES ThrottlingException for the daily quota', 'email', serviceError(SESv2ServiceException, 'ThrottlingException', 400, 'Daily message quota exceeded.')],
    ['SES unverified From identity (MessageRejected)', 'email', serviceError(SESv2ServiceException, 'MessageRejected', 400, 'Email address is not verified. The following identities failed the check in region US-EAST-1: sender@example.com')],
    ['SES SendingPausedException', 'email', serviceError(SESv2ServiceException, 'SendingPausedException', 400)],
    ['SES missing configuration set (NotFoundException)', 'email', serviceError(SESv2ServiceException, 'NotFoundException', 404, 'Configuration set <cs> does not exist.')],
    ['SNS AuthorizationErrorException', 'sms', serviceError(SNSServiceException, 'AuthorizationErrorException', 403)],
    ['connection refused', 'sms', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' })],
  ] as const)('%s: certainly not sent, stays PENDING, retried with the same key', async (_name, channel, error) => {
    const eventId = `evt-transient-${_name.replace(/\W/g, '-')}`;
    const event =
      channel === 'email'
        ? orderShippedEvent({ eventId, recipients: [orderShippedEvent().recipients[1]!] })
        : loginCodeEvent({ eventId });
    const key = channel === 'email' ? keyOf(eventId, 'seller-4', 'email', 'order-shipped') : keyOf(eventId, 'user-9', 'sms', 'login-code');
    sesMock.on(SendEmailCommand).rejectsOnce(error).resolves({ MessageId: 'ses-ok' });
    snsMock.on(PublishCommand).rejectsOnce(error).resolves({ MessageId: 'sns-ok' });
    const harness = awsHarness();
    const record = sqsRecord(JSON.stringify(event));
    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(harness.metrics.get(METRIC.TransientRetry)).toBe(1);
    const causeMetric = /quota/.test(_name)
      ? METRIC.ProviderQuotaExhausted
      : /Throttl|TooMany/.test(_name)
        ? METRIC.ProviderThrottled
        : /refused/.test(_name)
          ? undefined
          : METRIC.ProviderConfigurationFault;
    if (causeMetric) expect(harness.metrics.get(causeMetric), causeMetric).toBe(1);

    // The redelivery takes the released claim at once (no wait for the claim timeout) and sends.
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', attempts: 2 });
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
  });

  it('SNS InvalidParameterException: FAILED', async () => {
    snsMock.on(PublishCommand).rejects(serviceError(SNSServiceException, 'InvalidParameterException', 400, 'Invalid parameter: PhoneNumber'));
    const harness = awsHarness();
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(loginCodeEvent({ eventId: 'evt-sns-invalid' })))))).toEqual([]);
    expect(await db.ledger.get(keyOf('evt-sns-invalid', 'user-9', 'sms', 'login-code'))).toMatchObject({ state: 'FAILED' });
  });

  it.each([
    ['otp', 'resend: released as ambiguous, resent on redelivery and counted', 2, 'SENT'],
    ['marketing', 'give-up: UNKNOWN at once and counted', 1, 'UNKNOWN'],
  ] as const)('SNS 500 for class %s: %s', async (messageClass, _what, calls, state) => {
    snsMock
      .on(PublishCommand)
      .rejectsOnce(serviceError(SNSServiceException, 'InternalErrorException', 500))
      .resolves({ MessageId: 'sns-after' });
    const harness = awsHarness();
    const eventId = `evt-sns-500-${messageClass}`;
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass }));
    let deliveries = 0;
    while (deliveries < 3 && failedIds(await harness.invoke(sqsRecord(body))).length > 0) deliveries += 1;
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(calls);
    expect(await db.ledger.get(keyOf(eventId, 'user-9', 'sms', 'login-code'))).toMatchObject({ state });
    expect(harness.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(messageClass === 'otp' ? 1 : 0);
    expect(harness.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(messageClass === 'marketing' ? 1 : 0);
  });
});
