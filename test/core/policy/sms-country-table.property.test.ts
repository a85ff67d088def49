import fc from 'fast-check';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { describe, expect, it } from 'vitest';
import { countryOfNumber } from '../../../functions/core/policy/sms-country-table';
import { smsCountryTable, unknownSmsCountries } from '../../../lib/sms-countries';

/** What libphonenumber-js itself says, with its smallest metadata. */
const libraryCountry = (n: string) => parsePhoneNumberFromString(n)?.country;

const LISTS = [['US'], ['CA'], ['US', 'CA', 'GB'], ['GB'], ['JE'], ['DE', 'FR'], ['KZ'], ['PR', 'VI'], ['TC']];
// Calling codes of the lists, their neighbours, and codes of no allowed country (premium international networks among them).
const CODES = ['1', '44', '49', '33', '7', '882', '883', '881', '979', '20', '247', '290', '599', '61', '262'];

describe('the embedded country lookup against libphonenumber-js', () => {
  // The library also strips a national prefix written after the calling code (+1 1 201...): the lookup does
  // not, so it never allows such a number (fail closed); on every other number the two agree.
  it.each(LISTS)('for %s: a number is allowed exactly when the library puts it in an allowed country; never more', (...allowed) => {
    const table = smsCountryTable(allowed);
    const isAllowed = (c: string | undefined) => c !== undefined && allowed.includes(c);
    fc.assert(
      fc.property(fc.constantFrom(...CODES), fc.stringMatching(/^[0-9]{6,12}$/), (code, national) => {
        const number = `+${code}${national}`;
        const mine = countryOfNumber(table, number);
        const parsed = parsePhoneNumberFromString(number);
        if (isAllowed(mine)) expect(parsed?.country, number).toBe(mine);
        const prefixStripped = parsed !== undefined && parsed.countryCallingCode === code && parsed.nationalNumber !== national;
        if (!prefixStripped) expect(isAllowed(mine), number).toBe(isAllowed(parsed?.country));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['+14155550123', 'US'],
    ['+18762345678', 'JM'],
    ['+16495551234', 'TC'],
    ['+14165550123', 'CA'],
    ['+882123456789', undefined],
  ])('%s is %s for a table that allows it', (number, country) => {
    expect(libraryCountry(number)).toBe(country);
    const table = smsCountryTable(['US', 'CA', 'JM', 'TC']);
    expect(countryOfNumber(table, number)).toBe(country);
  });

  it('a country of a three-digit calling code is found: Ireland, +353', () => {
    expect(libraryCountry('+353861234567')).toBe('IE');
    expect(countryOfNumber(smsCountryTable(['IE']), '+353861234567')).toBe('IE');
  });

  it('a number written without its + is read as the same digits, not one digit short', () => {
    const table = smsCountryTable(['US', 'DE']);
    expect(countryOfNumber(table, '14155550123')).toBe('US');
    expect(countryOfNumber(table, '4930123456')).toBe('DE');
  });

  it('a Caribbean number is not a US number (+1 is two dozen countries)', () => {
    expect(countryOfNumber(smsCountryTable(['US']), '+18762345678')).toBeUndefined();
  });

  it('the table holds only what the allowed countries need: US alone is the first +1 country, no neighbour', () => {
    const table = smsCountryTable(['US', 'DE']);
    expect(table.allowed).toEqual(['DE', 'US']);
    expect(Object.keys(table.callingCodes).sort()).toEqual(['1', '49']);
    expect(table.callingCodes['49']).toEqual({ only: 'DE' });
    expect((table.callingCodes['1'] as { readonly plans: readonly { country: string }[] }).plans.map((p) => p.country)).toEqual(['US']);
    expect(JSON.stringify(table).length).toBeLessThan(2_000);
  });

  it('names every code that is no country', () => {
    expect(unknownSmsCountries(['US', 'UK', 'gb', 'XX'])).toEqual(['UK', 'gb', 'XX']);
  });
});
