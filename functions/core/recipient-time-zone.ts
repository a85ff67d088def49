import { localMinutesAt } from './quiet-hours';
import type { RenderedMessage } from './rendered-message';
import { countryOfNumber, type SmsCountryTable } from './sms-country-table';

/** The longest zone name the door takes (the longest IANA name, America/Argentina/ComodRivadavia, has 32). */
export const TIME_ZONE_MAX_LENGTH = 64;

/** Whether `name` is a time zone the platform knows (an IANA name such as `Europe/Paris`, or `UTC`), in any case. */
export function isTimeZone(name: string): boolean {
  return canonicalTimeZone(name) !== undefined;
}

/**
 * The platform's own spelling of a zone it knows (`aMERICA/nEW_yORK` is `America/New_York`, `utc` is `UTC`), or
 * undefined. Intl takes a zone in any case, so one zone has 2^n spellings: the door hands on this one, so that nothing
 * keyed by a zone (a formatter cache, a log field) grows with a producer's spellings (review defect 5).
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > TIME_ZONE_MAX_LENGTH) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The IANA zones of a country (ISO 3166-1 alpha-2), from the platform's CLDR data (`Intl.Locale`). */
export function timeZonesOfCountry(country: string): readonly string[] {
  const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?: () => string[]; timeZones?: string[] };
  return locale.getTimeZones?.() ?? locale.timeZones ?? [];
}

/** The year whose zone rules `zoneSpreadMinutes` reads unless told: fixed, so a synth gives the same figures on any day. */
export const ZONE_SPREAD_REFERENCE_YEAR = 2026;

/**
 * How far apart the clocks of `zones` can be (minutes): the shortest arc of the 24-hour dial that holds all their
 * local times, at noon UTC on the 1st and 15th of each month of `year`, at its widest. On the dial, because quiet
 * hours are a time of day: the US (New York, UTC-4 in summer, to Honolulu, UTC-10) 360; Pacific/Midway (UTC-11)
 * and Pacific/Wake (UTC+12) 60, not 23 hours. 0 for one zone, or zones whose clocks agree.
 * @param year @default ZONE_SPREAD_REFERENCE_YEAR
 */
export function zoneSpreadMinutes(zones: readonly string[], year = ZONE_SPREAD_REFERENCE_YEAR): number {
  let widest = 0;
  for (let month = 0; month < 12; month += 1) {
    for (const day of [1, 15]) {
      const noonUtc = Date.UTC(year, month, day, 12);
      // Local minutes since midnight less UTC's (720 at noon): each zone's offset on the dial.
      const offsets = [...new Set(zones.map((zone) => (localMinutesAt(zone, noonUtc) - 720 + 1440) % 1440))].sort((a, b) => a - b);
      widest = Math.max(widest, shortestArcMinutes(offsets));
    }
  }
  return widest;
}

/** The shortest arc of the 1440-minute dial that holds every point of `sorted` (ascending, distinct): the dial less its widest gap. */
function shortestArcMinutes(sorted: readonly number[]): number {
  if (sorted.length < 2) return 0;
  let widestGap = 1440 - (sorted[sorted.length - 1]! - sorted[0]!);
  for (let i = 1; i < sorted.length; i += 1) widestGap = Math.max(widestGap, sorted[i]! - sorted[i - 1]!);
  return 1440 - widestGap;
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
