import { NO_SMS_COUNTRIES, type SmsCountryTable } from '../core/policy/sms-country-table';

/**
 * The identifier the SMS country table is embedded under: synth (lib/notifier-function.ts) hands esbuild
 * a `define` for it with the table of the stack's `smsCountries`. Unbundled, it is a plain global.
 */
export const SHIPPED_SMS_COUNTRIES_IDENTIFIER = '__NOTIFIER_SMS_COUNTRIES__';

declare const __NOTIFIER_SMS_COUNTRIES__: SmsCountryTable | undefined;

/**
 * The countries this bundle may text. A bundle built without a table (not by the construct) allows
 * none: every SMS is SUPPRESSED `CountryNotAllowed`, never sent unchecked.
 */
export function shippedSmsCountries(): SmsCountryTable {
  return typeof __NOTIFIER_SMS_COUNTRIES__ === 'undefined' ? NO_SMS_COUNTRIES : __NOTIFIER_SMS_COUNTRIES__;
}
