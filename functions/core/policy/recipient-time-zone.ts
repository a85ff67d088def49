import { localMinutesAt } from './quiet-hours';
import type { RenderedMessage } from '../templates/rendered-message';
import { countryOfNumber, type SmsCountryTable } from './sms-country-table';

/**
 * The zones of the regions libphonenumber gives numbers to and the platform's CLDR data gives no zone
 * (`new Intl.Locale('und-XK').getTimeZones()` is empty): without them a number there would silently take
 * the stack's zone. Exactly the three such regions of libphonenumber-js's metadata
 * (test/core/country-time-zones.test.ts fails on a fourth):
 * - XK, Kosovo (a user-assigned code, so in no ISO-based zone table): Central European Time with summer time,
 *   the clock of Serbia, whose zone Europe/Belgrade is (https://greenwichmeantime.com/time-zone/europe/kosovo/).
 * - AC, Ascension Island, and TA, Tristan da Cunha (Unicode region subtags for parts of ISO 3166-1 SH, "Saint
 *   Helena, Ascension and Tristan da Cunha"): GMT all year, the zone CLDR gives SH itself (`und-SH`:
 *   Atlantic/St_Helena).
 */
export const COUNTRY_ZONES_CLDR_LACKS: Readonly<Record<string, readonly string[]>> = {
  XK: ['Europe/Belgrade'],
  AC: ['Atlantic/St_Helena'],
  TA: ['Atlantic/St_Helena'],
};

/**
 * The IANA zones of a country (ISO 3166-1 alpha-2, or a region libphonenumber numbers), from the platform's
 * CLDR data (`Intl.Locale`), else from {@link COUNTRY_ZONES_CLDR_LACKS}; empty for a code neither knows.
 */
export function timeZonesOfCountry(country: string): readonly string[] {
  const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?: () => string[]; timeZones?: string[] };
  const zones = locale.getTimeZones?.() ?? locale.timeZones ?? [];
  return zones.length > 0 ? zones : (COUNTRY_ZONES_CLDR_LACKS[country] ?? []);
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
  if (message.timeZone) return { zones: [message.timeZone], source: 'recipient' };
  if (message.channel === 'sms' && countries) {
    const country = countryOfNumber(countries, message.to);
    const zones = country ? timeZonesOfCountry(country) : [];
    if (zones.length > 0) return { zones, source: 'country' };
  }
  return { zones: [defaultZone], source: 'default' };
}
