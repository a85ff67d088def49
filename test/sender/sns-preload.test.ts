import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_SMS_COUNTRIES } from '../../functions/core/policy/sms-country-table';
import type { SenderConfig } from '../../functions/core/sender-config';
import { smsCountryTable } from '../../lib/sms-countries';

/** Counts imports of the SNS client module: a preload is its import. */
const loads = { snsClient: 0 };

const SNS: SenderConfig['delivery'] = { mode: 'aws', emailFrom: 'a@b.co', sesConfigurationSet: 'set', smsSenderId: undefined, smsOriginationNumber: undefined, sms: { provider: 'sns' } };
const EUM: SenderConfig['delivery'] = { ...SNS, sms: { provider: 'end-user-messaging', configurationSet: 'sms', originationIdentity: undefined, maxPrice: undefined, protectConfigurationId: undefined } };
const OUTBOX: SenderConfig['delivery'] = { mode: 'outbox', outboxFile: '/tmp/never.jsonl' };
const NO_PUSH = { pushApplicationArns: [] };
const PUSH = { pushApplicationArns: ['arn:aws:sns:us-east-1:123456789012:app/GCM/shop'] };

/** Whether a fresh sender with these settings starts loading SNS at cold start. */
async function preloads(delivery: SenderConfig['delivery'], destinations: SenderConfig['destinations'], countries = NO_SMS_COUNTRIES): Promise<boolean> {
  vi.resetModules();
  loads.snsClient = 0;
  vi.doMock('../../functions/adapters/sns-client', () => {
    loads.snsClient += 1;
    return { newSnsClient: () => undefined };
  });
  vi.doMock('../../functions/adapters/sns-provider', () => ({ SnsProvider: class {} }));
  const { preloadSnsWhenReachable } = await import('../../functions/sender/sns-preload');
  preloadSnsWhenReachable({ delivery, destinations }, countries);
  // A preload is one import away: a few turns of the event loop, not a timer.
  for (let turn = 0; turn < 20 && loads.snsClient === 0; turn += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  return loads.snsClient > 0;
}

afterAll(() => {
  vi.doUnmock('../../functions/adapters/sns-client');
  vi.doUnmock('../../functions/adapters/sns-provider');
});

describe('SNS is preloaded at cold start only where the sender can text through it or push', () => {
  beforeEach(() => void (loads.snsClient = 0));

  it('texts through SNS to an allowed country, or push applications allowed: loaded while the cold start goes on', async () => {
    expect(await preloads(SNS, NO_PUSH, smsCountryTable(['US']))).toBe(true);
    expect(await preloads(EUM, PUSH)).toBe(true);
    // Unset PUSH_APPLICATION_ARNS allows any application (an unbundled sender).
    expect(await preloads(EUM, {})).toBe(true);
  });

  it('no SMS country and no push, texts through End User Messaging and no push, or outbox mode: never loaded at cold start', async () => {
    expect(await preloads(SNS, NO_PUSH)).toBe(false);
    expect(await preloads(EUM, NO_PUSH, smsCountryTable(['US']))).toBe(false);
    expect(await preloads(OUTBOX, PUSH, smsCountryTable(['US']))).toBe(false);
  });
});
