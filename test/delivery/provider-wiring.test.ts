import { GetAccountCommand, SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LogPort } from '../../functions/core/observability/log-port';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { loadSenderConfig, smsKeyedEvidence, type SenderConfig } from '../../functions/core/sender-config';
import { createLambdaSendClients, createProviders, createSendRateGovernor, governorFor } from '../../functions/delivery/provider-wiring';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

/** SDK clients that never leave the process: every call is answered by the mocks below. */
const ses = new SESv2Client({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const sesMock = mockClient(ses);
const snsMock = mockClient(sns);
const eum = new PinpointSMSVoiceV2Client({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const eumMock = mockClient(eum);
const messageClasses = buildMessageClassRegistry();
beforeEach(() => {
  sesMock.reset();
  snsMock.reset();
  eumMock.reset();
});

const AWS_DELIVERY: SenderConfig['delivery'] = {
  mode: 'aws',
  emailFrom: 'orders@shop.example',
  sesConfigurationSet: 'notifier-events',
  smsSenderId: 'SHOP',
  smsOriginationNumber: '+15550100999',
  sms: { provider: 'sns' },
};
const EUM_DELIVERY: SenderConfig['delivery'] = {
  ...AWS_DELIVERY,
  sms: { provider: 'end-user-messaging', configurationSet: 'notifier-sms', originationIdentity: 'pool-1', maxPrice: '0.10', protectConfigurationId: 'protect-1' },
};
const OUTBOX_DELIVERY: SenderConfig['delivery'] = { mode: 'outbox', outboxFile: '/tmp/never-written.jsonl' };

/** A log port that keeps every line. */
function recordingLog(): LogPort & { lines: { level: string; message: string; attributes?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; attributes?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, attributes?: Record<string, unknown>) => void lines.push({ level, message, attributes });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

const signal = () => new AbortController().signal;
const request = (message: ProviderRequest['message']): ProviderRequest => ({ key: 'k'.repeat(64), message, messageClass: 'otp', smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1, templateId: 't' });

describe('the providers built from the configuration', () => {
  it('in AWS mode: SES with the From address and configuration set, SNS with the sender id and origination number', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const providers = createProviders({ delivery: AWS_DELIVERY, sendTimeoutMs: 2_000, messageClasses }, { ses, sns });
    await providers.email.send(request({ channel: 'email', to: 'buyer@example.com', subject: 's', text: 't' }), signal());
    await providers.sms.send(request({ channel: 'sms', to: '+14155550101', text: 't' }), signal());
    expect(sesMock.commandCalls(SendEmailCommand)[0]!.args[0].input).toMatchObject({ FromEmailAddress: 'orders@shop.example', ConfigurationSetName: 'notifier-events' });
    expect(snsMock.commandCalls(PublishCommand)[0]!.args[0].input.MessageAttributes).toMatchObject({
      'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'SHOP' },
      'AWS.MM.SMS.OriginationNumber': { DataType: 'String', StringValue: '+15550100999' },
    });
    expect(providers.push).toBe(providers.sms);
  });

  it('with SMS_PROVIDER=end-user-messaging: SMS through SendTextMessage with every setting and the class\'s TimeToLive, push still through SNS', async () => {
    eumMock.on(SendTextMessageCommand).resolves({ MessageId: 'eum-1' });
    snsMock.on(PublishCommand).resolves({ MessageId: 'sns-1' });
    const providers = createProviders({ delivery: EUM_DELIVERY, sendTimeoutMs: 2_000, messageClasses }, { ses, sns, eum });
    expect(await providers.sms.send(request({ channel: 'sms', to: '+14155550101', text: 'Your code is 123456' }), signal())).toEqual({ kind: 'sent', providerMessageId: 'eum-1' });
    expect(eumMock.commandCalls(SendTextMessageCommand)[0]!.args[0].input).toEqual({
      DestinationPhoneNumber: '+14155550101',
      MessageBody: 'Your code is 123456',
      MessageType: 'TRANSACTIONAL',
      ConfigurationSetName: 'notifier-sms',
      Context: { 'idempotency-key': 'k'.repeat(64), 'claim-version': '1' },
      OriginationIdentity: 'pool-1',
      MaxPrice: '0.10',
      ProtectConfigurationId: 'protect-1',
      TimeToLive: 600,
    });
    expect(providers.sms.keyedEvidence).toBe(true);
    expect(providers.push.keyedEvidence).toBeUndefined();
    await providers.push.send(request({ channel: 'push', to: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/1', title: 't', text: 'b' }), signal());
    expect(snsMock.commandCalls(PublishCommand)).toHaveLength(1);
  });

  it('the End User Messaging provider loaded on first use still says its texts have a time to live (the lazy wrapper dropped timeToLive)', () => {
    const providers = createProviders({ delivery: EUM_DELIVERY, sendTimeoutMs: 2_000, messageClasses }, { ses, sns, eum });
    expect(providers.sms.timeToLive).toBe(true);
    expect(providers.push.timeToLive).toBeUndefined();
  });

  it('the configuration says which SMS provider has keyed evidence, as the provider itself does', () => {
    const base = { LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: '30', CLAIM_TIMEOUT_SECONDS: '60', EMAIL_FROM: 'a@b.co', DEAD_LETTER_QUEUE_URL: 'https://q' };
    const eumConfig = loadSenderConfig({ ...base, SMS_PROVIDER: 'end-user-messaging', SMS_CONFIGURATION_SET: 'notifier-sms' });
    expect(smsKeyedEvidence(eumConfig)).toBe(true);
    expect(createProviders(eumConfig, { ses, sns, eum }).sms.keyedEvidence).toBe(true);
    const snsConfig = loadSenderConfig(base);
    expect(smsKeyedEvidence(snsConfig)).toBe(false);
    expect(createProviders(snsConfig, { ses, sns }).sms.keyedEvidence).toBeUndefined();
    expect(() => loadSenderConfig({ ...base, SMS_PROVIDER: 'end-user-messaging' })).toThrow(/SMS_CONFIGURATION_SET: is required with SMS_PROVIDER=end-user-messaging/);
    expect(() => loadSenderConfig({ ...base, SMS_PROVIDER: 'twilio' })).toThrow(/SMS_PROVIDER/);
  });

  it('send clients exist in AWS mode only, and at cold start only SES\'s: SNS\'s and End User Messaging\'s are made with their first call', () => {
    expect(createLambdaSendClients({ delivery: EUM_DELIVERY, sendTimeoutMs: 2_000 })).toEqual({ ses: expect.any(SESv2Client) });
    expect(createLambdaSendClients({ delivery: AWS_DELIVERY, sendTimeoutMs: 2_000 })).toEqual({ ses: expect.any(SESv2Client) });
    expect(createLambdaSendClients({ delivery: OUTBOX_DELIVERY, sendTimeoutMs: 2_000 })).toBeUndefined();
  });

  it('made on first use, the SNS and End User Messaging clients are the send clients: no SDK retry, the send timeout', async () => {
    const { newSnsClient } = await import('../../functions/adapters/sns-client');
    const { newEumClient } = await import('../../functions/adapters/eum-client');
    for (const client of [newSnsClient(2_000), newEumClient(2_000)]) {
      expect(await client.config.maxAttempts()).toBe(1);
      expect(client.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
    }
    expect(newSnsClient(2_000)).toBeInstanceOf(SNSClient);
    expect(newEumClient(2_000)).toBeInstanceOf(PinpointSMSVoiceV2Client);
  });
});

describe('the send-rate governor at cold start', () => {
  const config = (sendRates: SenderConfig['sendRates'], delivery: SenderConfig['delivery'] = AWS_DELIVERY) => ({ delivery, sendRates, sendRateShares: 2, sendRateAccountShare: 1, yieldsToThrottling: false, lane: undefined });
  const account = (quota: { MaxSendRate?: number }, sendingEnabled = true) => ({
    SendQuota: { ...quota, Max24HourSend: 50_000, SentLast24Hours: 10 },
    ProductionAccessEnabled: true,
    SendingEnabled: sendingEnabled,
  });

  it('paces e-mail at SES’s own rate when none is configured, split over the processes, and logs the account', async () => {
    sesMock.on(GetAccountCommand).resolves(account({ MaxSendRate: 14 }));
    const log = recordingLog();
    const governor = await createSendRateGovernor(config({}), ses, log);
    expect(governor?.rateOf('email')).toBe(7);
    expect(log.lines).toEqual([
      {
        level: 'info',
        message: 'SES account at cold start',
        attributes: { maxSendRate: 14, max24HourSend: 50_000, sentLast24Hours: 10, productionAccessEnabled: true, sendingEnabled: true, configuredEmailRate: null },
      },
      { level: 'info', message: 'Send rates of this process', attributes: { lane: null, accountRates: { email: 14 }, laneShareOfAccount: 1, shares: 2, perProcess: { email: 7 }, yieldsToThrottling: false } },
    ]);
  });

  it('a configured e-mail rate wins over SES’s', async () => {
    sesMock.on(GetAccountCommand).resolves(account({ MaxSendRate: 14 }));
    const log = recordingLog();
    expect((await createSendRateGovernor(config({ email: 4 }), ses, log))?.rateOf('email')).toBe(2);
    expect(log.lines[0]?.attributes).toMatchObject({ configuredEmailRate: 4 });
  });

  it('a paused account is logged as an error (every e-mail will be refused)', async () => {
    sesMock.on(GetAccountCommand).resolves(account({ MaxSendRate: 14 }, false));
    const log = recordingLog();
    await createSendRateGovernor(config({}), ses, log);
    expect(log.lines[0]).toMatchObject({ level: 'error', message: 'SES account at cold start' });
  });

  it('without a rate from SES or the configuration, e-mail is not paced', async () => {
    sesMock.on(GetAccountCommand).resolves(account({}));
    const log = recordingLog();
    expect(await createSendRateGovernor(config({}), ses, log)).toBeUndefined();
    expect(log.lines.map((line) => line.message)).toEqual(['SES account at cold start']);
  });

  it('if SES cannot be asked, only the configured rates apply', async () => {
    sesMock.on(GetAccountCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    const log = recordingLog();
    const governor = await createSendRateGovernor(config({ sms: 10 }), ses, log);
    expect([governor?.rateOf('sms'), governor?.rateOf('email')]).toEqual([5, undefined]);
    expect(log.lines[0]).toMatchObject({ level: 'warn' });
  });

  it('in outbox mode SES is not asked', async () => {
    expect(await createSendRateGovernor(config({}, OUTBOX_DELIVERY), ses, recordingLog())).toBeUndefined();
    expect(sesMock.commandCalls(GetAccountCommand)).toHaveLength(0);
  });

  it('without an SES client SES is not asked', async () => {
    expect((await createSendRateGovernor(config({ push: 8 }), undefined, recordingLog()))?.rateOf('push')).toBe(4);
    expect(sesMock.commandCalls(GetAccountCommand)).toHaveLength(0);
  });

  it('no governor at all when no channel is paced', () => {
    const pace = { sendRateShares: 3, sendRateAccountShare: 1, yieldsToThrottling: false };
    expect(governorFor({}, pace)).toBeUndefined();
    expect(governorFor({ sms: 9 }, pace)?.rateOf('sms')).toBe(3);
  });

  it("a lane's governor paces at its share of the account, and only the bulk lane's yields to throttling", () => {
    const urgent = governorFor({ email: 20 }, { sendRateShares: 5, sendRateAccountShare: 1, yieldsToThrottling: false });
    const bulk = governorFor({ email: 20 }, { sendRateShares: 10, sendRateAccountShare: 0.9, yieldsToThrottling: true });
    expect(urgent?.rateOf('email')).toBe(4);
    expect(bulk?.rateOf('email')).toBeCloseTo(1.8, 10);
    urgent?.throttled('email');
    bulk?.throttled('email');
    const now = Date.now();
    expect(urgent?.factorAt('email', now)).toBe(1);
    expect(bulk?.factorAt('email', now)).toBeLessThanOrEqual(0.51);
  });
});
