// The smallest metadata build: country and validity by leading digits and lengths, which is all a
// country check needs (+1 alone is two dozen countries, Caribbean premium ranges among them).
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * The ISO 3166-1 alpha-2 country of an E.164 number, or undefined when the number fits no country's
 * numbering plan (international networks such as +882/+883, unassigned ranges): such a number is in
 * no allowed country.
 */
export function countryOfNumber(phoneNumber: string): string | undefined {
  return parsePhoneNumberFromString(phoneNumber)?.country;
}
