import type { RenderedMessage } from './rendered-message';
import type { Suppression } from './suppression';

/**
 * Where messages may go at all, whatever the limits say. A field left out allows every destination
 * of its channel (tests, local runs); the stack always sets both.
 */
export interface DestinationPolicy {
  /** ISO 3166-1 alpha-2 codes an SMS may be sent to. @default any country */
  readonly smsCountries?: ReadonlySet<string>;
  /** Platform application ARNs (`arn:aws:sns:<region>:<account>:app/<PLATFORM>/<name>`) whose endpoints push may reach. @default any */
  readonly pushApplicationArns?: readonly string[];
}

/** The endpoint ARN prefix of a platform application: `…:app/GCM/shop` owns `…:endpoint/GCM/shop/<id>`. */
export function endpointPrefixOf(applicationArn: string): string {
  return `${applicationArn.replace(':app/', ':endpoint/')}/`;
}

/**
 * Why a message may not go to its destination, or undefined when it may. The detail names the
 * country or nothing, never the address. Pure; `countryOf` maps a number to its country.
 */
export function destinationSuppression(
  message: RenderedMessage,
  policy: DestinationPolicy,
  countryOf: (phoneNumber: string) => string | undefined,
): Suppression | undefined {
  if (message.channel === 'sms' && policy.smsCountries) {
    const country = countryOf(message.to);
    if (country === undefined || !policy.smsCountries.has(country)) {
      return {
        reason: 'CountryNotAllowed',
        detail: `CountryNotAllowed: ${country ? `country ${country} is` : 'the number belongs to no country and is'} not in the SMS country list`,
      };
    }
  }
  if (message.channel === 'push' && policy.pushApplicationArns) {
    const to = message.to;
    if (!policy.pushApplicationArns.some((arn) => to.startsWith(endpointPrefixOf(arn)))) {
      return { reason: 'PushApplicationNotAllowed', detail: 'PushApplicationNotAllowed: the endpoint belongs to no configured platform application' };
    }
  }
  return undefined;
}

/** `"US, gb"` or `["US","GB"]` → the set, upper-cased; every entry that is not two letters is reported. */
export function parseCountryList(list: readonly string[]): { readonly countries: ReadonlySet<string>; readonly invalid: readonly string[] } {
  const countries = new Set<string>();
  const invalid: string[] = [];
  for (const raw of list) {
    const code = raw.trim().toUpperCase();
    if (/^[A-Z]{2}$/.test(code)) countries.add(code);
    else invalid.push(raw);
  }
  return { countries, invalid };
}
