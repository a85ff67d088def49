import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { DeliveryProviders } from '../../functions/core/provider/delivery-provider';
import type { RecordDeferral } from '../../functions/core/queue/record-deferral';
import { loadSenderConfig } from '../../functions/core/sender-config';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { createProviders } from '../../functions/delivery/provider-wiring';
import { startLocalSes, type LocalSes } from '../../local/aws/local-ses';
import { LOCAL_STACK } from '../../local/local-runner';
import { localEmailTenants, localLaneSenders, resolveLocalStack } from '../../local/local-stack';
import { loginCodeEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

/**
 * Every SendEmail names its class's lane's SES tenant, through the real SES v2 client against the local SES,
 * with the providers each Lambda builds from the environment synth writes for it (npm start's stack).
 */
const db = useTestLedger();
const LOOPBACK = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } } as const;
const resolved = resolveLocalStack(LOCAL_STACK);
const tenants = localEmailTenants(resolved);
const lanes = localLaneSenders(resolved, {
  tableName: 'notifier-ledger-unused',
  queues: resolved.lanes.map(({ name }) => ({ queueUrl: `https://sqs.invalid/${name}`, deadLetterQueueUrl: `https://sqs.invalid/${name}-dlq` })),
});
const tenantOf = (lane: 'urgent' | 'bulk') => tenants.find((t) => t.lane === lane)!.tenantName;

let ses: LocalSes;
const clients: { destroy(): void }[] = [];
beforeAll(async () => {
  ses = await startLocalSes({ tenants: tenants.map((t) => ({ tenantName: t.tenantName, configurationSets: [t.configurationSetName] })) });
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await ses.stop();
});

/** The providers a Lambda with `environment` builds (the sender's, or the reclaimer's: the urgent lane's). */
function providersOf(environment: Readonly<Record<string, string>>): DeliveryProviders {
  const config = loadSenderConfig(environment);
  const sesClient = new SESv2Client({ ...sendClientConfig(2_000), ...LOOPBACK, endpoint: ses.endpoint });
  const snsClient = new SNSClient({ ...sendClientConfig(2_000), ...LOOPBACK, endpoint: 'http://127.0.0.1:9' });
  clients.push(sesClient, snsClient);
  return createProviders(config, { ses: sesClient, sns: snsClient });
}

function laneSender(lane: 'urgent' | 'bulk', deferral?: RecordDeferral): SenderHarness {
  const environment = lanes.find((l) => l.name === lane)!.environment;
  return new SenderHarness({ ledger: db.ledger, providers: providersOf(environment), ...(deferral ? { deferral } : {}) });
}

const sentTo = (key: string) => ses.accepted().filter((e) => e.key === key);

describe('each lane sends with its own SES tenant', () => {
  it('a login code carries the urgent tenant and the urgent configuration set; a newsletter the bulk ones', async () => {
    const code = loginCodeEvent({ eventId: 'evt-tenant-code', recipients: [{ recipientId: 'u-1', email: 'u1@shop.example', channels: ['email'] }] });
    const offers = weeklyOffersEvent({ eventId: 'evt-tenant-offers' });
    expect(failedIds(await laneSender('urgent').invoke(sqsRecord(JSON.stringify(code))))).toEqual([]);
    expect(failedIds(await laneSender('bulk').invoke(sqsRecord(JSON.stringify(offers))))).toEqual([]);
    const [codeMail] = ses.accepted().filter((e) => e.tags['template'] === 'login-code');
    const [offerMail] = ses.accepted().filter((e) => e.tags['template'] === 'weekly-offers');
    expect(codeMail).toMatchObject({ tenantName: tenantOf('urgent'), configurationSetName: 'notifier-local' });
    expect(offerMail).toMatchObject({ tenantName: tenantOf('bulk'), configurationSetName: 'notifier-local-bulk' });
    expect(tenantOf('urgent')).not.toEqual(tenantOf('bulk'));
  });

  it("the reclaimer's providers (built from the urgent lane's environment) keep each message's lane tenant", async () => {
    const reclaimerEnvironment = lanes.find((l) => l.name === 'urgent')!.environment;
    const providers = providersOf(reclaimerEnvironment);
    const request = (messageClass: string, key: string): ProviderRequest => ({
      key,
      smsType: 'Transactional',
      push: DEFAULT_PUSH_POLICY,
      claimVersion: 2,
      messageClass,
      templateId: messageClass === 'marketing' ? 'weekly-offers' : 'login-code',
      bulk: messageClass === 'marketing',
      message: { channel: 'email' as const, to: `${key}@shop.example`, subject: 'resend', text: 'resend' },
    });
    const signal = new AbortController().signal;
    expect((await providers.email.send(request('marketing', 'resent-bulk'), signal)).kind).toBe('sent');
    expect((await providers.email.send(request('otp', 'resent-urgent'), signal)).kind).toBe('sent');
    expect(sentTo('resent-bulk')[0]).toMatchObject({ tenantName: tenantOf('bulk'), configurationSetName: 'notifier-local-bulk' });
    expect(sentTo('resent-urgent')[0]).toMatchObject({ tenantName: tenantOf('urgent'), configurationSetName: 'notifier-local' });
  });
});

describe('the local SES and the tenants', () => {
  it('refuses a tenant the stack did not create (NotFoundException), as a configuration fault: nothing sent', async () => {
    const providers = providersOf({ ...lanes.find((l) => l.name === 'urgent')!.environment, SES_TENANT_NAME: 'someone-elses-tenant' });
    const outcome = await providers.email.send(
      { key: 'unknown-tenant', claimVersion: 1, smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, messageClass: 'otp', templateId: 'login-code', bulk: false, message: { channel: 'email', to: 'a@shop.example', subject: 's', text: 't' } },
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ kind: 'transient', cause: 'configuration' });
    expect(sentTo('unknown-tenant')).toEqual([]);
  });

  it('a paused bulk tenant: bulk records back off and count a configuration fault, login codes in the same second are sent', async () => {
    ses.tenants.pause(tenantOf('bulk'));
    try {
      const deferred: number[] = [];
      const bulk = laneSender('bulk', { defer: async (_handle, seconds) => void deferred.push(seconds) });
      const urgent = laneSender('urgent');
      const offers = weeklyOffersEvent({ eventId: 'evt-paused-offers' });
      const code = loginCodeEvent({ eventId: 'evt-paused-code', recipients: [{ recipientId: 'u-2', email: 'u2@shop.example', channels: ['email'] }] });
      const startedAt = Date.now();
      const [bulkAnswer, urgentAnswer] = await Promise.all([
        bulk.invoke(sqsRecord(JSON.stringify(offers), 'offers-1')),
        urgent.invoke(sqsRecord(JSON.stringify(code), 'code-1')),
      ]);
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      expect(failedIds(urgentAnswer)).toEqual([]);
      expect(ses.accepted().filter((e) => e.tags['template'] === 'login-code' && e.to.includes('u2@shop.example'))).toHaveLength(1);
      // The newsletter was not sent, and its record comes back later.
      expect(ses.accepted().filter((e) => e.key !== undefined && e.tags['template'] === 'weekly-offers' && e.to.includes('seller@example.com') && e.acceptedAt >= startedAt)).toEqual([]);
      expect(failedIds(bulkAnswer).length + deferred.length).toBeGreaterThan(0);
      expect(bulk.metrics.get(METRIC.ProviderConfigurationFault)).toBe(1);
      expect(urgent.metrics.get(METRIC.ProviderConfigurationFault)).toBe(0);
    } finally {
      ses.tenants.resume(tenantOf('bulk'));
    }
  });
});
