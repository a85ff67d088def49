import { SendEmailCommand, SESv2Client, type SendEmailCommandInput } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it } from 'vitest';
import { SES_KEY_TAG, SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { startLocalSes, type LocalSes, type LocalSesOptions } from '../../local/aws/local-ses';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

let ses: LocalSes | undefined;
afterEach(async () => {
  await ses?.stop();
  ses = undefined;
});

async function start(options: LocalSesOptions = {}): Promise<{ ses: LocalSes; client: SESv2Client }> {
  ses = await startLocalSes(options);
  return { ses, client: new SESv2Client({ endpoint: ses.endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 }) };
}

const request = (key: string): ProviderRequest => ({
  key,
  message: { channel: 'email', to: 'buyer@example.com', subject: 'Your order shipped', text: 'On its way.', html: '<p>On its way.</p>' },
  messageClass: 'transactional',
  smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
  templateId: 'order-shipped',
});

const sendEmail = (key: string): SendEmailCommandInput => ({
  FromEmailAddress: 'shop@example.com',
  Destination: { ToAddresses: ['buyer@example.com'] },
  Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } },
  EmailTags: [{ Name: SES_KEY_TAG, Value: key }],
});

async function errorOf(promise: Promise<unknown>): Promise<{ name: string; status: number | undefined; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { name: string; message: string; $metadata?: { httpStatusCode?: number } },
  );
  if (!error) throw new Error('expected the call to fail');
  return { name: error.name, status: error.$metadata?.httpStatusCode, message: error.message };
}

describe('local SES v2 (aws-ses-v2-local behind a counting front)', () => {
  it('accepts SendEmail from the real SesEmailProvider (Simple content, EmailTags, ConfigurationSetName) and counts it by its key tag', async () => {
    const { ses, client } = await start();
    const provider = new SesEmailProvider(client, { fromAddress: 'shop@example.com', configurationSetName: 'notifier-events' });

    const first = await provider.send(request('key-a'), new AbortController().signal);
    await provider.send(request('key-b'), new AbortController().signal);
    await provider.send(request('key-a'), new AbortController().signal);

    expect(first).toMatchObject({ kind: 'sent' });
    expect([...ses.acceptedPerKey()]).toEqual([
      ['key-a', 2],
      ['key-b', 1],
    ]);
    expect(ses.accepted()[0]).toMatchObject({
      channel: 'email',
      key: 'key-a',
      from: 'shop@example.com',
      to: ['buyer@example.com'],
      subject: 'Your order shipped',
      configurationSetName: 'notifier-events',
      tags: { 'message-class': 'transactional', template: 'order-shipped' },
    });
    expect(ses.accepted()[0]?.messageId).toBe(first.kind === 'sent' ? first.providerMessageId : '');
  });

  it('keeps what it accepted in the mailbox store behind the page', async () => {
    const { ses, client } = await start();
    await client.send(new SendEmailCommand(sendEmail('key-store')));
    const store = (await (await fetch(`${ses.endpoint}/store`)).json()) as { emails: { messageId: string; subject: string }[] };
    expect(store.emails.map((e) => e.messageId)).toContain(ses.accepted()[0]?.messageId);
  });

  it('answers above the sending rate with the documented ThrottlingException (HTTP 400) "Maximum sending rate exceeded." and does not count it', async () => {
    let nowMs = 1_000_000;
    const { ses, client } = await start({ limits: { maxPerSecond: 2, clock: () => nowMs } });
    await client.send(new SendEmailCommand(sendEmail('k1')));
    await client.send(new SendEmailCommand(sendEmail('k2')));

    expect(await errorOf(client.send(new SendEmailCommand(sendEmail('k3'))))).toEqual({
      name: 'ThrottlingException',
      status: 400,
      message: 'Maximum sending rate exceeded.',
    });
    nowMs += 1_001;
    await client.send(new SendEmailCommand(sendEmail('k3')));
    expect([...ses.acceptedPerKey().keys()]).toEqual(['k1', 'k2', 'k3']);
  });

  it('answers above the daily quota with the documented ThrottlingException (HTTP 400) "Daily message quota exceeded.", or, when asked, LimitExceededException (400)', async () => {
    const { client } = await start({ limits: { dailyQuota: 1 } });
    await client.send(new SendEmailCommand(sendEmail('k1')));
    expect(await errorOf(client.send(new SendEmailCommand(sendEmail('k2'))))).toEqual({
      name: 'ThrottlingException',
      status: 400,
      message: 'Daily message quota exceeded.',
    });
    await ses?.stop();

    const other = await start({ limits: { dailyQuota: 1 }, dailyQuotaError: 'LimitExceededException' });
    await other.client.send(new SendEmailCommand(sendEmail('k1')));
    expect(await errorOf(other.client.send(new SendEmailCommand(sendEmail('k2'))))).toMatchObject({ name: 'LimitExceededException', status: 400 });
  });

  it('refuses to start when SMTP_TRANSPORT would forward mail off the machine', async () => {
    process.env.SMTP_TRANSPORT = '{"host":"mail.example.com"}';
    try {
      await expect(startLocalSes()).rejects.toThrow(/SMTP_TRANSPORT is set/);
    } finally {
      delete process.env.SMTP_TRANSPORT;
    }
  });
});
