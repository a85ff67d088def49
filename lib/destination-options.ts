import type { SmsCountryTable } from '../functions/core/policy/sms-country-table';
import { NO_SMS_COUNTRIES } from '../functions/core/policy/sms-country-table';
import { SHIPPED_SMS_COUNTRIES_IDENTIFIER } from '../functions/delivery/shipped-sms-countries';
import type { IdempotentNotifierProps } from './notifier-props';
import { smsCountryTable, unknownSmsCountries } from './sms-countries';

/**
 * The identifier the stack's SMS provider is embedded under: synth hands esbuild a `define` for it, so a bundle
 * built for SNS carries no End User Messaging adapter or client and one built for End User Messaging carries them.
 * Unbundled (tests, local runs) it is undefined: both are there. The functions declare it where they read it
 * (functions/delivery/provider-wiring.ts, functions/adapters/send-clients.ts); only synth needs its name.
 */
export const SHIPPED_SMS_PROVIDER_IDENTIFIER = '__NOTIFIER_SMS_PROVIDER__';

/** The props that decide where messages may go. */
export type DestinationProps = Pick<IdempotentNotifierProps, 'smsEnabled' | 'smsCountries' | 'pushEnabled' | 'pushPlatformApplications'>;

const APPLICATION_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:app\/[A-Za-z_]+\/[A-Za-z0-9_.-]+$/;

/** SMS is on when asked for, or when countries are given. */
export function smsEnabled(props: DestinationProps): boolean {
  return props.smsEnabled ?? (props.smsCountries?.length ?? 0) > 0;
}

/** Push is on when asked for, or when platform applications are given. */
export function pushEnabled(props: DestinationProps): boolean {
  return props.pushEnabled ?? (props.pushPlatformApplications?.length ?? 0) > 0;
}

/** Every problem with the SMS countries and push applications, each with the value given. */
export function destinationViolations(props: DestinationProps): string[] {
  const violations: string[] = [];
  if (smsEnabled(props) && !props.smsCountries?.length) {
    violations.push(
      'SMS needs an explicit list of destination countries: smsCountries (context notifier:smsCountries), ISO 3166-1 alpha-2 ' +
        'codes such as ["US","CA"]. The sns:Publish grant cannot be narrowed to countries; this list and the message-class ' +
        'limits are what stand between a producer and an SMS bill',
    );
  }
  const unknown = unknownSmsCountries(props.smsCountries ?? []);
  if (unknown.length > 0) violations.push(`smsCountries: ${unknown.map((c) => JSON.stringify(c)).join(', ')} not ISO 3166-1 alpha-2 codes of a country with phone numbers`);
  if (pushEnabled(props) && !props.pushPlatformApplications?.length) {
    violations.push(
      'Push needs the platform application ARNs whose endpoints may be published to: pushPlatformApplications ' +
        '(context notifier:pushPlatformApplications), e.g. ["arn:aws:sns:us-east-1:123456789012:app/GCM/shop"]',
    );
  }
  const badArns = (props.pushPlatformApplications ?? []).filter((arn) => !APPLICATION_ARN.test(arn));
  if (badArns.length > 0) violations.push(`pushPlatformApplications: ${badArns.map((a) => JSON.stringify(a)).join(', ')} not SNS platform application ARNs (arn:aws:sns:<region>:<account>:app/<PLATFORM>/<name>)`);
  return violations;
}

/** The SMS country table of these props: none when SMS is off. Call after {@link destinationViolations} found none. */
export function smsCountryTableOf(props: DestinationProps): SmsCountryTable {
  return smsEnabled(props) && props.smsCountries?.length ? smsCountryTable(props.smsCountries) : NO_SMS_COUNTRIES;
}

/**
 * The esbuild `define` that embeds the SMS provider in the sender's and the reclaimer's bundles: built for SNS,
 * they carry no End User Messaging adapter or client (the sender's bundle budget has no room for both).
 */
export function smsProviderDefine(props: Pick<IdempotentNotifierProps, 'smsProvider'>): Readonly<Record<string, string>> {
  return { [SHIPPED_SMS_PROVIDER_IDENTIFIER]: JSON.stringify(props.smsProvider ?? 'sns') };
}

/** The esbuild `define` that embeds the SMS country table in the sender's and the reclaimer's bundles. */
export function smsCountriesDefine(props: DestinationProps): Readonly<Record<string, string>> {
  return { [SHIPPED_SMS_COUNTRIES_IDENTIFIER]: JSON.stringify(smsCountryTableOf(props)) };
}

/** The endpoint ARN pattern of a platform application's devices (what push is granted on). */
export function endpointArnsOf(applicationArn: string): string {
  return `${applicationArn.replace(':app/', ':endpoint/')}/*`;
}
