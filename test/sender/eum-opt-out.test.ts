import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbConsentStore } from '../../functions/adapters/dynamodb-consent-store';
import { eumSmsProvider } from '../../functions/adapters/eum-sms-provider';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { consentKeyOf } from '../../functions/core/policy/consent';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { startLocalEum, type LocalEum } from '../../local/aws/local-eum';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { ControlledClock } from '../support/controlled-clock';
import { weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();
// Noon UTC: no quiet hours anywhere near.
const clock = new ControlledClock(Date.parse('2026-11-30T12:00:00Z'));
const OPTED_OUT = '+14155550188';
let eum: LocalEum;
let client: PinpointSMSVoiceV2Client;
beforeAll(async () => {
  eum = await startLocalEum({ optedOut: [OPTED_OUT] });
  client = new PinpointSMSVoiceV2Client({ ...sendClientConfig(2_000), region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, endpoint: eum.endpoint });
});
afterAll(async () => {
  client.destroy();
  await eum.stop();
});

// The events occur at the clock: a text's End User Messaging time to live counts from its event (review defect 6).
const AT_THE_CLOCK = '2026-11-30T12:00:00.000Z';
const text = (eventId: string, messageClass: 'marketing' | 'otp'): NotificationEvent =>
  messageClass === 'marketing'
    ? weeklyOffersEvent({ eventId, occurredAt: AT_THE_CLOCK, recipients: [{ recipientId: 'member-9', phone: OPTED_OUT, timeZone: 'UTC', channels: ['sms'] }] })
    : { ...weeklyOffersEvent(), eventId, occurredAt: AT_THE_CLOCK, templateId: 'login-code', messageClass: 'otp', data: { code: '482913', expiresInMinutes: 10 }, recipients: [{ recipientId: 'member-9', phone: OPTED_OUT, channels: ['sms'] }] };
const keyOf = (event: NotificationEvent) => idempotencyKey({ eventId: event.eventId, recipientId: 'member-9', channel: 'sms', templateId: event.templateId });

describe('a number opted out of End User Messaging texts (it replied STOP)', () => {
  const consent = () => new DynamoDbConsentStore(db.client, db.tableName);
  let calls = 0;
  const sender = () => {
    const real = eumSmsProvider(client, { configurationSetName: 'notifier-sms' });
    const sms = { ...real, send: (...args: Parameters<typeof real.send>) => ((calls += 1), real.send(...args)) };
    return new SenderHarness({ ledger: db.ledger, clock, providers: { email: sms, sms, push: sms }, consent: consent() });
  };

  it('a bulk text refused for it ends SUPPRESSED OptedOut, not FAILED, and the next one is not handed to End User Messaging', async () => {
    const first = text('evt-eum-stop-1', 'marketing');
    expect(failedIds(await sender().invoke(sqsRecord(JSON.stringify(first))))).toEqual([]);
    expect(await db.ledger.get(keyOf(first))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'OptedOut' });
    expect(await consent().read(consentKeyOf({ channel: 'sms', to: OPTED_OUT, text: '' })!)).toMatchObject({ all: true });

    const before = calls;
    const second = text('evt-eum-stop-2', 'marketing');
    expect(failedIds(await sender().invoke(sqsRecord(JSON.stringify(second))))).toEqual([]);
    expect(await db.ledger.get(keyOf(second))).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'OptedOut' });
    expect(calls).toBe(before);
  });

  it('its one-time code is still handed over (consent never stops otp); the refusal is FAILED with its reason', async () => {
    const code = text('evt-eum-stop-otp', 'otp');
    const before = calls;
    await sender().invoke(sqsRecord(JSON.stringify(code)));
    expect(calls).toBe(before + 1);
    expect(await db.ledger.get(keyOf(code))).toMatchObject({ state: 'FAILED', failureReason: expect.stringMatching(/^OptedOut: ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT/) });
  });
});
