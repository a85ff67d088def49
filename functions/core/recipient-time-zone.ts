import type { RenderedMessage } from './rendered-message';
import { countryOfNumber, type SmsCountryTable } from './sms-country-table';

/** Whether `name` is a time zone the platform knows (an IANA name such as `Europe/Paris`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The IANA zones of a country (ISO 3166-1 alpha-2), from the platform's CLDR data (`Intl.Locale`). */
export function timeZonesOfCountry(country: string): readonly string[] {
  const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?: () => string[]; timeZones?: string[] };
  return locale.getTimeZones?.() ?? locale.timeZones ?? [];
}

/** Where a recipient's local time comes from, and the zones it may be in. */
export interface RecipientZones {
  readonly zones: readonly string[];
  /** `recipient`: the event's `timeZone`; `country`: the number's country; `default`: the stack's zone. */
  readonly source: 'recipient' | 'country' | 'default';
}

/**
 * The zones a message's recipient may be in, in order of trust: the recipient's own `timeZone` (validated
 * when the event was read); else, for a text, the zones of its number's country (one zone, or all of a
 * country that has several: quiet hours then hold the message while it is quiet time in any of them);
 * else the stack's default zone.
 */
export function recipientZones(message: RenderedMessage, countries: SmsCountryTable | undefined, defaultZone: string): RecipientZones {
  const own = message.channel === 'email' ? undefined : message.timeZone;
  if (own) return { zones: [own], source: 'recipient' };
  if (message.channel === 'sms' && countries) {
    const country = countryOfNumber(countries, message.to);
    const zones = country ? timeZonesOfCountry(country) : [];
    if (zones.length > 0) return { zones, source: 'country' };
  }
  return { zones: [defaultZone], source: 'default' };
}
