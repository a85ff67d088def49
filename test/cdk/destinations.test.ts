import { describe, expect, it } from 'vitest';
import { NO_SMS_COUNTRIES } from '../../functions/core/policy/sms-country-table';
import { SHIPPED_SMS_COUNTRIES_IDENTIFIER } from '../../functions/delivery/shipped-sms-countries';
import { smsCountriesDefine } from '../../lib/destination-options';
import { notifierPropsFromContext } from '../../lib/context-config';
import { smsCountryTable } from '../../lib/sms-countries';
import { Stack } from 'aws-cdk-lib';
import { errorOf, newApp, propertiesOf, synth, TEST_PUSH_APPLICATION_ARN } from './helpers';

const publishStatements = (props: Parameters<typeof synth>[0]) => {
  const { stack, template } = synth(props);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: { Action: string | string[]; Sid: string }[] } } }[];
  const senderRole = stack.resolve((stack.notifier.senderFunction.role!.node.defaultChild as unknown as { logicalId: string }).logicalId) as string;
  return policies
    .filter((p) => p.Properties.Roles.some((r) => r.Ref === senderRole))
    .flatMap((p) => p.Properties.PolicyDocument.Statement)
    .filter((s) => [s.Action].flat().includes('sns:Publish'))
    .map((s) => s.Sid);
};

describe('SMS destinations', () => {
  it('fails if SMS is enabled without a country list, saying what stands between a producer and the bill', () => {
    const message = errorOf({ smsEnabled: true, smsCountries: undefined });
    expect(message).toMatch(/SMS needs an explicit list of destination countries: smsCountries \(context notifier:smsCountries\)/);
    expect(message).toMatch(/this list and the message-class limits are what stand between a producer and an SMS bill/);
  });

  it('fails naming every code that is no country', () => {
    expect(errorOf({ smsCountries: ['US', 'UK', 'gb'] })).toMatch(/smsCountries: "UK", "gb" not ISO 3166-1 alpha-2 codes/);
  });

  it('grants sms:Publish to phone numbers only with a country list; without one SMS is off', () => {
    expect(publishStatements({ smsCountries: ['US'] })).toContain('PublishSmsToPhoneNumbersOnly');
    expect(publishStatements({ smsCountries: undefined, smsMonthlySpendLimitUsd: undefined })).not.toContain('PublishSmsToPhoneNumbersOnly');
  });

  it('embeds the country table of the list in the sender and the reclaimer, and no country when SMS is off', () => {
    expect(JSON.parse(smsCountriesDefine({ smsCountries: ['US', 'CA'] })[SHIPPED_SMS_COUNTRIES_IDENTIFIER]!)).toEqual(smsCountryTable(['US', 'CA']));
    expect(JSON.parse(smsCountriesDefine({ smsCountries: ['US'], smsEnabled: false })[SHIPPED_SMS_COUNTRIES_IDENTIFIER]!)).toEqual(NO_SMS_COUNTRIES);
    expect(JSON.parse(smsCountriesDefine({})[SHIPPED_SMS_COUNTRIES_IDENTIFIER]!)).toEqual(NO_SMS_COUNTRIES);
  });

  it('reads notifier:smsCountries as a comma-separated list', () => {
    const app = newApp({ 'notifier:smsCountries': 'us, CA' });
    expect(notifierPropsFromContext(new Stack(app, 'Ctx')).smsCountries).toEqual(['US', 'CA']);
  });
});

describe('push destinations', () => {
  it('fails if push is enabled without platform application ARNs', () => {
    expect(errorOf({ pushEnabled: true, pushPlatformApplications: undefined })).toMatch(/Push needs the platform application ARNs/);
  });

  it('fails naming every entry that is no platform application ARN', () => {
    expect(errorOf({ pushPlatformApplications: ['GCM/shop', TEST_PUSH_APPLICATION_ARN] })).toMatch(/pushPlatformApplications: "GCM\/shop" not SNS platform application ARNs/);
  });

  it('tells the functions the applications, and `none` when push is off (a push is then suppressed, never sent)', () => {
    const env = (props: Parameters<typeof synth>[0]) => {
      const { stack, template } = synth(props);
      return (propertiesOf(template, stack.notifier.senderFunction)['Environment'] as { Variables: Record<string, unknown> }).Variables['PUSH_APPLICATION_ARNS'];
    };
    expect(env({})).toBe(TEST_PUSH_APPLICATION_ARN);
    expect(env({ pushPlatformApplications: undefined })).toBe('none');
    expect(publishStatements({ pushPlatformApplications: undefined })).not.toContain('PublishToPlatformEndpoints');
  });
});
