import type { RenderedMessage } from '../templates/rendered-message';
import { countryOfNumber, type SmsCountryTable } from './sms-country-table';
import type { Suppression } from './suppression';

/**
 * Where messages may go at all, whatever the limits say. A field left out allows every destination
 * of its channel (tests, local runs); the stack always sets both.
 */
export interface DestinationPolicy {
  /** The countries an SMS may be sent to, and how to tell their numbers (lib/sms-countries.ts). @default any country */
  readonly sms?: SmsCountryTable;
  /** Platform application ARNs (`arn:aws:sns:<region>:<account>:app/<PLATFORM>/<name>`) whose endpoints push may reach. @default any */
  readonly pushApplicationArns?: readonly string[];
}

/** The endpoint ARN prefix of a platform application: `…:app/GCM/shop` owns `…:endpoint/GCM/shop/<id>`. */
export function endpointPrefixOf(applicationArn: string): string {
  return `${applicationArn.replace(':app/', ':endpoint/')}/`;
}

/**
 * Why a message may not go to its destination, or undefined when it may. The detail never names the
 * address. Pure.
 */
export function destinationSuppression(message: RenderedMessage, policy: DestinationPolicy): Suppression | undefined {
  if (message.channel === 'sms' && policy.sms) {
    const country = countryOfNumber(policy.sms, message.to);
    if (country === undefined || !policy.sms.allowed.includes(country)) {
      // The table names only allowed countries (and their calling-code neighbours): any other number is "not in the list".
      return { reason: 'CountryNotAllowed', detail: `CountryNotAllowed: the number is in none of the SMS countries (${policy.sms.allowed.join(', ') || 'none'})` };
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
