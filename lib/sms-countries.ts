import { Metadata, getCountries, getCountryCallingCode, type CountryCode } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';
import type { CountryPlan, SmsCountryTable } from '../functions/core/policy/sms-country-table';

/** The number types libphonenumber-js's `getNumberType` tries; a number of none of them is in no country. */
const NUMBER_TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'] as const;

/** Every entry of `countries` that is not an ISO 3166-1 alpha-2 code libphonenumber-js knows, as it was given. */
export function unknownSmsCountries(countries: readonly string[]): string[] {
  const known = new Set<string>(getCountries(metadata));
  return countries.filter((country) => !known.has(country));
}

/**
 * What the sender needs to tell the allowed countries' numbers from every other number, from
 * libphonenumber-js's minimal metadata (see functions/core/policy/sms-country-table.ts).
 * @param countries ISO 3166-1 alpha-2 codes, already checked with {@link unknownSmsCountries}.
 */
export function smsCountryTable(countries: readonly string[]): SmsCountryTable {
  const allowed = [...new Set(countries)].sort();
  const callingCodes: Record<string, SmsCountryTable['callingCodes'][string]> = {};
  for (const country of allowed) {
    const code = getCountryCallingCode(country as CountryCode, metadata);
    if (callingCodes[code]) continue;
    const sharing = (metadata.country_calling_codes as Record<string, readonly string[]>)[code] ?? [];
    if (sharing.length === 1) {
      callingCodes[code] = { only: country };
      continue;
    }
    const lastAllowed = Math.max(...sharing.map((c, i) => (allowed.includes(c) ? i : -1)));
    callingCodes[code] = { plans: sharing.slice(0, lastAllowed + 1).map(planOf) };
  }
  return { allowed, callingCodes };
}

/**
 * The numbering plan methods libphonenumber-js's `Metadata` has at run time (source/metadata.js) and its
 * type declarations leave out; its own parser reads the plan through exactly these.
 */
interface RuntimeNumberingPlan {
  leadingDigits(): string | undefined;
  nationalNumberPattern(): string;
  type(type: (typeof NUMBER_TYPES)[number]): { pattern(): string } | undefined;
}

function planOf(country: string): CountryPlan {
  const plans = new Metadata(metadata);
  plans.selectNumberingPlan(country as CountryCode);
  const plan = plans.numberingPlan as unknown as RuntimeNumberingPlan;
  const leadingDigits = plan.leadingDigits();
  return {
    country,
    ...(leadingDigits ? { leadingDigits } : {}),
    nationalNumber: plan.nationalNumberPattern(),
    types: NUMBER_TYPES.map((type) => plan.type(type)?.pattern()).filter((p): p is string => Boolean(p)),
  };
}
