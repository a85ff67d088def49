/**
 * Which country an E.164 number belongs to, for the SMS country list, from a table synth derives from
 * libphonenumber-js's metadata (lib/sms-countries.ts). The library itself is not bundled: its smallest
 * build (38 KB of code and 82 KB of metadata) would put the sender far over its 150 KB budget, while the
 * part of its metadata the allowed countries need is a few KB. The lookup below is libphonenumber-js's
 * own `getCountryByCallingCode` (helpers/getCountryByCallingCode.js) over that part, hand-written for
 * that reason; test/core/policy/sms-country-table.property.test.ts checks it against the library.
 */

/** One country's numbering plan, as libphonenumber-js's minimal metadata has it. */
export interface CountryPlan {
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** "Leading digits": a national number starting with them is this country's, without further checks. */
  readonly leadingDigits?: string;
  /** The whole national number must match this... */
  readonly nationalNumber: string;
  /** ...and one of these (fixed line, mobile, toll free, ...). */
  readonly types: readonly string[];
}

/** The allowed countries, and what telling them apart from their calling-code neighbours takes. */
export interface SmsCountryTable {
  /** ISO 3166-1 alpha-2 codes an SMS may be sent to. */
  readonly allowed: readonly string[];
  /**
   * Per calling code of an allowed country: the one country it belongs to, or the countries that share
   * it in libphonenumber's order (main country first), up to the last allowed one: a number none of
   * them claims belongs to a later country, which is not allowed either.
   */
  readonly callingCodes: Readonly<Record<string, { readonly only: string } | { readonly plans: readonly CountryPlan[] }>>;
}

/** No country: what a sender without a table, or a stack with SMS off, allows. */
export const NO_SMS_COUNTRIES: SmsCountryTable = { allowed: [], callingCodes: {} };

/** The country of `phoneNumber` (E.164) if it is one the table can name, else undefined. */
export function countryOfNumber(table: SmsCountryTable, phoneNumber: string): string | undefined {
  const digits = phoneNumber.startsWith('+') ? phoneNumber.slice(1) : phoneNumber;
  // E.164 calling codes are 1 to 3 digits and none is a prefix of another.
  for (let length = 1; length <= 3; length += 1) {
    const entry = table.callingCodes[digits.slice(0, length)];
    if (!entry) continue;
    if ('only' in entry) return entry.only;
    const national = digits.slice(length);
    for (const plan of entry.plans) {
      if (plan.leadingDigits !== undefined) {
        if (new RegExp(`^(?:${plan.leadingDigits})`).test(national)) return plan.country;
      } else if (matchesEntirely(national, plan.nationalNumber) && plan.types.some((type) => matchesEntirely(national, type))) {
        return plan.country;
      }
    }
    return undefined;
  }
  return undefined;
}

function matchesEntirely(text: string, pattern: string): boolean {
  return new RegExp(`^(?:${pattern})$`).test(text);
}
